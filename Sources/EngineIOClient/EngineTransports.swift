package import RealtimeHTTP
package import RealtimeIO

// `URLSessionDelegate` comes from FoundationNetworking on Linux, from Foundation elsewhere.
#if canImport(FoundationNetworking)
import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif

/// The transports an Engine.IO client drives: the HTTP client its polling driver sends
/// requests with, and the WebSocket client its WebSocket driver opens connections with.
package struct EngineTransports: Sendable {
    /// `nil` when no HTTP client exists on this platform: polling is then unavailable.
    package var http: (any HTTPTransport)?
    package var webSocket: any WebSocketTransport
    /// `true` when `http` keeps the server's cookies itself (the native client's cookie store),
    /// so the engine adds them only to the WebSocket upgrade request.
    package var httpKeepsCookies: Bool
    /// The loop the transports' connections live on (the native ones'); the drivers' tasks
    /// prefer it (``EngineDriverHost/eventLoop``). `nil` for URLSession and injected transports.
    package var eventLoop: EventLoop?

    package init(
        http: (any HTTPTransport)?, webSocket: any WebSocketTransport, httpKeepsCookies: Bool,
        eventLoop: EventLoop? = nil
    ) {
        self.http = http
        self.webSocket = webSocket
        self.httpKeepsCookies = httpKeepsCookies
        self.eventLoop = eventLoop
    }

    /// The native clients of `RealtimeHTTP` over `RealtimeIO`'s connector; each engine gets
    /// its own HTTP client, so cookies never leak between managers.
    ///
    /// - Parameter eventLoop: the one loop all of the engine's connections (polling requests,
    ///   the WebSocket) live on, and its drivers' tasks prefer; by default the next loop of the
    ///   process default group. A manager given a group passes `group.next()` here (and the
    ///   same loop to its ``EventLoopTimerSource``), so a session stays on one loop.
    package static func native(eventLoop: EventLoop = EventLoopGroup.shared.next()) -> EngineTransports {
        EngineTransports(
            http: HTTPClient(eventLoops: eventLoop), webSocket: WebSocketClient(eventLoops: eventLoop),
            httpKeepsCookies: true, eventLoop: eventLoop)
    }

    /// URLSession, as upstream socket.io-client-swift used it: one ephemeral session per
    /// engine for polling and WebSocket, with `sessionDelegate` asked about authentication
    /// challenges first. The engine keeps the cookies (the app's and the server's sticky
    /// cookies) and sends them itself on every request, as on the native stack, so URLSession's
    /// own cookie handling is off. TLS settings travel with each request and are applied in the
    /// server-trust challenge (Apple platforms).
    package static func urlSession(sessionDelegate: (any URLSessionDelegate)?) -> EngineTransports {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        let http = URLSessionHTTPTransport(configuration: configuration, sessionDelegate: sessionDelegate)
        return EngineTransports(http: http, webSocket: http.makeWebSocketTransport(), httpKeepsCookies: false)
    }
}
