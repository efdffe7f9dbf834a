import EngineIOClient
import Foundation
import RealtimeHTTP
import RealtimeTime

@testable import SocketIO

/// What the engine's drivers build and keep, read by tests (the engine itself has no use for
/// these: its drivers build the requests from ``SocketEngine/requestOptions``).
extension SocketEngine {
    /// Headers for every request (``EngineRequestOptions/headers(forWebSocket:sticky:httpKeepsCookies:)``).
    func requestHeaders(forWebSocket: Bool) -> HTTPHeaders {
        self.requestOptions.headers(
            forWebSocket: forWebSocket, sticky: self.stickyCookies, httpKeepsCookies: self.transports?.httpKeepsCookies ?? false)
    }

    /// TLS settings: verification on unless `.selfSigned(true)`; `.security` adds trust roots.
    func tlsConfiguration() -> TLSConfiguration {
        self.requestOptions.tls
    }

    /// A polling request (``EnginePollingDriver/request(method:sid:body:idleTimeout:)``).
    func pollingRequest(method: String, sid: String?, body: [UInt8]? = nil, idleTimeout: TimeAmount) -> HTTPClientRequest {
        self.pollingDriver.request(method: method, sid: sid, body: body, idleTimeout: idleTimeout)
    }

    /// The WebSocket URL (``EngineWebSocketDriver/url(sid:)``).
    func webSocketURL(sid: String?) -> URL {
        self.webSocketDriver.url(sid: sid)
    }

    /// How many close `POST`s of ended attempts still run.
    var closingPOSTCount: Int {
        self.state.withLock { $0.endings.count(.pollingClose) }
    }
}
