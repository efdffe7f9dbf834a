#if canImport(FoundationNetworking)
package import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif
package import RealtimeTransport

/// How a proxy reaches URLSession: as its session's `connectionProxyDictionary`, the one place
/// where the URLSession backends apply ``HTTPClientRequest/proxy`` and ``WebSocketOptions/proxy``.
///
/// ```swift
/// configuration.connectionProxyDictionary = URLSessionProxy.connectionProxyDictionary(
///     for: ProxyServer(kind: .socks5, host: "127.0.0.1", port: 1080))
/// // ["SOCKSEnable": 1, "SOCKSProxy": "127.0.0.1", "SOCKSPort": 1080]
/// ```
///
/// The keys are the string values of CFNetwork's `kCFNetworkProxies…` constants, which only
/// Darwin's SDK declares (and some of them only for macOS), so this compiles on Linux too.
/// What URLSession cannot do that the native stack does:
/// - **Credentials**: none are passed (the HTTP entries have no key for them). An HTTP proxy
///   that answers 407 makes URLSession ask the session delegate (upstream's `.sessionDelegate`)
///   with a proxy protection space, where an app can answer; SOCKS5 authentication is not
///   available.
/// - **A proxy per request**: the dictionary is per session, so ``URLSessionHTTPTransport``
///   keeps one session per proxy server (and the WebSocket tasks use the same ones).
/// - **Forcing direct**: without a proxy the session keeps the system's settings
///   (`connectionProxyDictionary` = `nil`), as upstream did; ``ProxyConfiguration/direct`` does
///   not turn a system-wide proxy off.
/// - **Linux**: FoundationNetworking declares the property but does not apply it (its libcurl
///   reads the `http_proxy` family of environment variables by itself), so on Linux the
///   dictionary is built and set but has no effect.
///
/// An HTTP `CONNECT` proxy fills both the HTTP and the HTTPS entries, since the native stack
/// tunnels every scheme through it; URLSession sends plain-HTTP requests to it in absolute form
/// instead of tunnelling them.
enum URLSessionProxy {
    /// The `connectionProxyDictionary` for sessions whose connections go through `server`.
    static func connectionProxyDictionary(for server: ProxyServer) -> [AnyHashable: Any] {
        let port = Int(server.port)
        switch server.kind {
        case .httpConnect:
            return ["HTTPEnable": 1, "HTTPProxy": server.host, "HTTPPort": port,
                    "HTTPSEnable": 1, "HTTPSProxy": server.host, "HTTPSPort": port]
        case .socks5:
            return ["SOCKSEnable": 1, "SOCKSProxy": server.host, "SOCKSPort": port]
        }
    }
}

extension URLSessionHTTPTransport {
    /// The configuration of the session a connection to `url` through `proxy` uses: its
    /// `connectionProxyDictionary` is what the proxy became (`nil` without one).
    package func sessionConfiguration(for url: URL, proxy: ProxyConfiguration) -> URLSessionConfiguration {
        self.session(for: url, proxy: proxy).session.configuration
    }
}
