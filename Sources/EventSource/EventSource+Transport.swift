import Foundation
package import RealtimeHTTP
import RealtimeIO
import RealtimeTime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

        /// The native client on Linux, URLSession on Apple platforms. On Linux a request whose
        /// scheme is neither http nor https (`mock://`, served by a `URLProtocol` subclass)
        /// goes through URLSession, chosen for each request (reconnections included).
        public static var automatic: Transport { Transport(kind: .automatic) }
        /// The project's HTTP/1.1 client (epoll event loop, OpenSSL TLS on Linux). It sends
        /// http and https only: another scheme ends the task with `URLError(.badURL)`.
        public static var native: Transport { Transport(kind: .native) }
        /// Foundation's URLSession (streams through its data delegate).
        ///
        /// A URL of any scheme is handed to the session, so a `URLProtocol` subclass can serve
        /// it (how tests mock the network). The session has its own configuration, not
        /// `URLSession.shared`'s: on Linux (swift-corelibs-foundation) it consults the classes
        /// registered with `URLProtocol.registerClass(_:)` after its own, so a registered class
        /// for a custom scheme (`mock://`) is found; on Apple platforms `registerClass(_:)`
        /// reaches only the shared session, so pass the classes with
        /// ``urlSession(protocolClasses:)``, which works on both.
        public static var urlSession: Transport { Transport(kind: .urlSession) }

        /// URLSession with `protocolClasses` consulted before the built-in ones (the
        /// configuration's `protocolClasses`), on every platform: the way to serve requests
        /// from `URLProtocol` subclasses on Apple platforms, where `URLProtocol.registerClass(_:)`
        /// does not reach a session of its own. Each call makes a session; event sources that
        /// share the returned value share it.
        public static func urlSession(protocolClasses: [AnyClass]) -> Transport {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = protocolClasses + (configuration.protocolClasses ?? [])
            return Transport(kind: .custom(URLSessionHTTPTransport(configuration: configuration)))
        }
        /// Any ``HTTPTransport`` (tests, embedding).
        package static func custom(_ transport: any HTTPTransport) -> Transport {
            Transport(kind: .custom(transport))
        }

        /// This transport placed on `group`, and the timer source of a data task that uses it.
        ///
        /// With a group, the native client (``native``, and ``automatic`` where it is built) is
        /// a client of its own, with its own pool, on one loop of the group (the next in turn):
        /// the data task's connections, first and reconnections, and its timers (the resource
        /// timeout, the reconnection delay) share that loop. URLSession, custom transports and no
        /// group keep the transport (the shared native client is on the process default group),
        /// and the timers are a loop of the process default group (Dispatch where the native
        /// stack is not built): a group URLSession ignores never holds a task's timers.
        func placed(on group: EventLoopGroup?) -> (transport: Transport, timers: any TimerSource) {
            guard let group else { return (self, EventLoopGroup.shared.next()) }
            switch self.kind {
            case .native:
                let loop = group.next()
                return (.custom(HTTPClient(eventLoops: loop)), loop)
            case .automatic:
                #if canImport(Darwin) || REALTIME_NO_NATIVE_STACK
                return (self, EventLoopGroup.shared.next())
                #else
                let loop = group.next()
                return (.custom(AutomaticHTTPTransport(native: HTTPClient(eventLoops: loop))), loop)
                #endif
            case .urlSession, .custom:
                return (self, EventLoopGroup.shared.next())
            }
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
                return AutomaticHTTPTransport(native: SharedTransports.native)
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

/// `.automatic` where the native client is built: it sends http and https, URLSession every
/// other scheme (served by a `URLProtocol` subclass). Chosen per request, so a redirect or a
/// reconnection's `prepareRequest` that changes the scheme changes the stack.
struct AutomaticHTTPTransport: HTTPTransport {
    /// The native client (the shared one, or a data task's on its event-loop group).
    let native: HTTPClient

    /// The transport that sends requests to `url`.
    func transport(for url: URL) -> any HTTPTransport {
        switch url.scheme?.lowercased() {
        case "http", "https": return self.native
        default: return SharedTransports.urlSession
        }
    }

    func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        try await self.transport(for: request.url).execute(request)
    }

    func closeIdleConnections() {
        self.native.closeIdleConnections()
    }
}
