package import Foundation

/// Which proxy, if any, a client's connection to a URL goes through. The native stack tunnels
/// through it; the URLSession backends make it the session's `connectionProxyDictionary`
/// (RealtimeHTTP's `URLSessionProxy` says what that cannot carry).
///
/// ```swift
/// var request = HTTPClientRequest(url: url)
/// request.proxy = .server(ProxyServer(kind: .socks5, host: "127.0.0.1", port: 1080))
/// request.proxy = .environment()          // HTTPS_PROXY / HTTP_PROXY / ALL_PROXY / NO_PROXY
/// ```
///
/// Every scheme goes through a tunnel: `CONNECT host:port` for an HTTP proxy, a SOCKS5
/// CONNECT otherwise; plain-HTTP requests also use CONNECT (not the absolute form), so HTTP,
/// TLS and WebSocket share one code path and pooled connections are keyed by origin + proxy.
package struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    enum Source: Sendable, Hashable {
        case direct
        case server(ProxyServer)
        case environment(ProxyEnvironment)
    }

    let source: Source

    /// Connect directly (the default).
    package static var direct: ProxyConfiguration { ProxyConfiguration(source: .direct) }

    /// Every connection through `server`.
    package static func server(_ server: ProxyServer) -> ProxyConfiguration {
        ProxyConfiguration(source: .server(server))
    }

    /// The proxies named by the environment variables (see ``ProxyEnvironment``), read now.
    package static func environment(_ variables: [String: String] = ProcessInfo.processInfo.environment)
        -> ProxyConfiguration
    {
        ProxyConfiguration(source: .environment(ProxyEnvironment(variables: variables)))
    }

    /// The proxies of an already parsed environment.
    package static func environment(_ environment: ProxyEnvironment) -> ProxyConfiguration {
        ProxyConfiguration(source: .environment(environment))
    }

    /// `direct`, the server (password hidden), or `environment`.
    package var description: String {
        switch self.source {
        case .direct: return "direct"
        case .server(let server): return server.description
        case .environment: return "environment"
        }
    }

    /// The proxy for a connection to `url` (`http`, `https`, `ws` or `wss`), or `nil` for direct.
    package func server(for url: URL) -> ProxyServer? {
        switch self.source {
        case .direct: return nil
        case .server(let server): return server
        case .environment(let environment): return environment.server(for: url)
        }
    }

    /// Parses a proxy URL: `http://[user:password@]host[:port]` (HTTP CONNECT, port 80 by
    /// default), `socks5://` or `socks5h://` (SOCKS5, port 1080 by default; both let the proxy
    /// resolve the name), or `host:port` without a scheme (taken as `defaultKind`). User name
    /// and password are percent-decoded.
    ///
    /// - Returns: `nil` for an unsupported scheme (`https://` proxies, SOCKS4) or no host.
    package static func parseProxyURL(_ text: String, defaultKind: ProxyServer.Kind = .httpConnect) -> ProxyServer? {
        var text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if !text.contains("://") {
            text = (defaultKind == .socks5 ? "socks5://" : "http://") + text
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            var host = components.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let kind: ProxyServer.Kind
        let defaultPort: Int
        switch scheme {
        case "http": (kind, defaultPort) = (.httpConnect, 80)
        case "socks5", "socks5h": (kind, defaultPort) = (.socks5, 1080)
        default: return nil
        }
        guard let port = UInt16(exactly: components.port ?? defaultPort), port > 0 else { return nil }
        var credentials: ProxyCredentials?
        if let user = components.percentEncodedUser {
            credentials = ProxyCredentials(
                username: user.removingPercentEncoding ?? user,
                password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 } ?? "")
        }
        return ProxyServer(kind: kind, host: host, port: port, credentials: credentials)
    }
}
