public import Foundation
import ProxyCodec
import RealtimeHTTP

extension EventSource {
    /// A proxy for the event source's connections: HTTP `CONNECT` or SOCKS5, with optional
    /// credentials, or the proxies named by the environment.
    ///
    /// ```swift
    /// var eventSource = EventSource()
    /// eventSource.proxy = .http(host: "proxy.corp", port: 3128, username: "me", password: "secret")
    /// // or: .socks5(host: "127.0.0.1", port: 1080), .url(proxyURL), .environment()
    /// ```
    ///
    /// The connection tunnels through the proxy and TLS runs inside the tunnel, verified against
    /// the server's name. Failures arrive as `.error(URLError)`:
    /// `.userAuthenticationRequired` when the proxy rejects the credentials (HTTP 407, SOCKS5
    /// authentication), `.cannotConnectToHost` when it refuses the target (the status or SOCKS5
    /// reply code is in the message), `.badServerResponse` when it breaks its protocol.
    ///
    /// - Important: Over URLSession (the default on Apple platforms) the proxy becomes the
    ///   session's `connectionProxyDictionary` (HTTP and HTTPS entries for `.http`, SOCKS
    ///   entries for `.socks5`): it takes effect on Apple platforms only (FoundationNetworking
    ///   ignores it), credentials are not sent (an HTTP proxy's 407 gets URLSession's default
    ///   handling), and `.direct` leaves the system's proxy settings in force. Failures are
    ///   URLSession's own `URLError`s.
    public struct Proxy: Sendable, Hashable, CustomStringConvertible {
        let configuration: ProxyConfiguration

        /// No proxy (the default).
        public static var direct: Proxy { Proxy(configuration: .direct) }

        /// An HTTP proxy asked for a tunnel with `CONNECT host:port` (for `http` URLs too),
        /// with `Proxy-Authorization: Basic` when a user name is given.
        public static func http(host: String, port: Int, username: String? = nil, password: String? = nil) -> Proxy {
            Self.server(.httpConnect, host: host, port: port, username: username, password: password)
        }

        /// A SOCKS5 proxy (RFC 1928), with username/password authentication (RFC 1929) when a
        /// user name is given. The proxy resolves the server's name.
        public static func socks5(host: String, port: Int, username: String? = nil, password: String? = nil) -> Proxy {
            Self.server(.socks5, host: host, port: port, username: username, password: password)
        }

        /// `http://[user:password@]host[:port]` or `socks5://…` (`socks5h://` too); `nil` for
        /// another scheme.
        public static func url(_ url: URL) -> Proxy? {
            ProxyConfiguration.parseProxyURL(url.absoluteString).map { Proxy(configuration: .server($0)) }
        }

        /// The process environment's proxies, read now: `https_proxy` for `https`, `http_proxy`
        /// for `http`, `all_proxy` otherwise (lowercase or uppercase names, lowercase first),
        /// except for hosts listed in `no_proxy`.
        public static func environment() -> Proxy {
            Proxy(configuration: .environment())
        }

        private static func server(
            _ kind: ProxyServer.Kind, host: String, port: Int,
            username: String?, password: String?
        ) -> Proxy {
            let credentials = username.map { ProxyCredentials(username: $0, password: password ?? "") }
            return Proxy(
                configuration: .server(
                    ProxyServer(
                        kind: kind, host: host, port: UInt16(clamping: port),
                        credentials: credentials)))
        }

        /// Names the proxy without its password.
        public var description: String { self.configuration.description }
    }
}

extension EventSource.Transport {
    /// This transport with `proxy` applied to every request (each transport applies it as it
    /// can: the native client tunnels, URLSession sets `connectionProxyDictionary`).
    func proxied(_ proxy: EventSource.Proxy) -> EventSource.Transport {
        guard proxy.configuration != .direct else { return self }
        return .custom(ProxiedHTTPTransport(base: self.makeHTTPTransport(), proxy: proxy.configuration))
    }
}

/// Sets the proxy on each request before handing it to the transport.
struct ProxiedHTTPTransport: HTTPTransport {
    let base: any HTTPTransport
    let proxy: ProxyConfiguration

    func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        var request = request
        request.proxy = self.proxy
        return try await self.base.execute(request)
    }
}
