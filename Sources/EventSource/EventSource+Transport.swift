package import RealtimeHTTP

extension EventSource {
    /// The HTTP stack a data task's requests go through.
    public struct Transport: Sendable {
        enum Kind: Sendable {
            case automatic
            case native
            case urlSession
            case custom(any HTTPTransport)
        }

        let kind: Kind

        /// The native client on Linux, URLSession on Apple platforms.
        public static var automatic: Transport { Transport(kind: .automatic) }
        /// The project's HTTP/1.1 client (epoll event loop, OpenSSL TLS on Linux).
        public static var native: Transport { Transport(kind: .native) }
        /// Foundation's URLSession (streams through its data delegate).
        public static var urlSession: Transport { Transport(kind: .urlSession) }
        /// Any ``HTTPTransport`` (tests, embedding).
        package static func custom(_ transport: any HTTPTransport) -> Transport {
            Transport(kind: .custom(transport))
        }

        /// The transport to send requests with. The built-in ones are shared by every
        /// event source of the process (one connection pool, one cookie store, like
        /// `URLSession.shared`).
        func makeHTTPTransport() -> any HTTPTransport {
            switch self.kind {
            case .custom(let transport):
                return transport
            case .native:
                return SharedTransports.native
            case .urlSession:
                return SharedTransports.urlSession
            case .automatic:
                // Apple platforms, and the configuration that builds them on Linux.
                #if canImport(Darwin) || REALTIME_NO_NATIVE_STACK
                return SharedTransports.urlSession
                #else
                return SharedTransports.native
                #endif
            }
        }
    }
}

/// The process-wide built-in transports, made on first use.
enum SharedTransports {
    static let native = HTTPClient()
    static let urlSession = URLSessionHTTPTransport()
}
