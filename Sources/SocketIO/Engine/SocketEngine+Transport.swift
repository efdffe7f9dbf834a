import EngineIOClient
import Foundation
import RealtimeHTTP
import RealtimeIO

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SocketEngine {
    /// The HTTP and WebSocket stack an engine's polling and WebSocket transports run on.
    ///
    /// ```swift
    /// // URLSession on Linux too (polling only there: FoundationNetworking has no WebSocket):
    /// let manager = SocketManager(socketURL: url, config: [.forcePolling(true)], transport: .urlSession)
    /// ```
    ///
    /// Both stacks speak the same Engine.IO machine, so upgrade, heartbeat and reconnection
    /// behave the same; they differ in what the options can reach (see each
    /// ``SocketIOClientOption``).
    public struct Transport: Sendable, CustomStringConvertible {
        enum Kind: Sendable {
            case automatic
            case native
            case urlSession
            case custom(EngineTransports)
            /// No transport (tests): every connect fails.
            case none
        }

        let kind: Kind

        /// URLSession on Apple platforms, the native stack on Linux (the default).
        public static var automatic: Transport { Transport(kind: .automatic) }
        /// The project's HTTP/1.1 and RFC 6455 clients over its epoll event loop and OpenSSL
        /// (Linux); elsewhere every connection fails with "the native transport is only
        /// available on Linux".
        public static var native: Transport { Transport(kind: .native) }
        /// Foundation's URLSession: polling through data tasks, WebSocket through
        /// `URLSessionWebSocketTask`, one ephemeral session per engine. On Linux the WebSocket
        /// fails to open (FoundationNetworking's libcurl has no WebSocket support), so the
        /// engine stays on polling; `.forceWebsockets(true)` cannot connect there. watchOS
        /// allows `URLSessionWebSocketTask` only to audio-streaming and VoIP apps (Apple's
        /// TN3135), so other watch apps should expect the same.
        public static var urlSession: Transport { Transport(kind: .urlSession) }
        /// Given transports (tests).
        static func custom(_ transports: EngineTransports) -> Transport { Transport(kind: .custom(transports)) }
        /// No transport at all (tests of what happens without one).
        static var none: Transport { Transport(kind: .none) }

        /// The transport's name: `automatic`, `native` or `urlSession`.
        public var description: String {
            switch self.kind {
            case .automatic: "automatic"
            case .native: "native"
            case .urlSession: "urlSession"
            case .custom: "custom"
            case .none: "none"
            }
        }

        /// Whether connections run on the native stack's event loops (``native``, and
        /// ``automatic`` where it means the native stack); `false` for URLSession and given
        /// transports.
        var runsOnEventLoops: Bool {
            switch self.kind {
            case .native: true
            case .automatic: !Self.automaticIsURLSession
            case .urlSession, .custom, .none: false
            }
        }

        /// Whether ``automatic`` means URLSession in this build: on Apple platforms, and in the
        /// `REALTIME_NO_NATIVE_STACK` configuration that builds them on Linux.
        static var automaticIsURLSession: Bool {
            #if canImport(Darwin) || REALTIME_NO_NATIVE_STACK
            true
            #else
            false
            #endif
        }

        /// The transports of one engine; the URLSession stack applies what `options` says
        /// about its session (`.sessionDelegate`). `nil` for ``none``.
        ///
        /// - Parameter eventLoop: the loop the native stack's connections live on (the
        ///   manager's); by default the next loop of the options' `.eventLoopGroup`, or of the
        ///   process default.
        func makeTransports(options: SocketEngineOptions, eventLoop: EventLoop? = nil) -> EngineTransports? {
            func native() -> EngineTransports {
                EngineTransports.native(eventLoop: eventLoop ?? (options.eventLoopGroup ?? EventLoopGroup.shared).next())
            }
            switch self.kind {
            case .custom(let transports):
                return transports
            case .none:
                return nil
            case .native:
                return native()
            case .urlSession:
                return EngineTransports.urlSession(sessionDelegate: options.sessionDelegate)
            case .automatic:
                return Self.automaticIsURLSession
                    ? EngineTransports.urlSession(sessionDelegate: options.sessionDelegate) : native()
            }
        }
    }
}
