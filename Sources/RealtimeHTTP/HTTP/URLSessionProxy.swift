package import RealtimeTransport

#if canImport(FoundationNetworking)
package import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif

/// How a proxy reaches URLSession: as its session's `connectionProxyDictionary`, the one place
/// where the URLSession backends apply ``HTTPClientRequest/proxy`` and ``WebSocketOptions/proxy``.
///
/// ```swift
/// configuration.connectionProxyDictionary = URLSessionProxy.connectionProxyDictionary(
///     for: ProxyServer(kind: .socks5, host: "127.0.0.1", port: 1080))
/// // ["SOCKSEnable": 1, "SOCKSProxy": "127.0.0.1", "SOCKSPort": 1080]
/// ```
///
/// The keys are the string values of CFNetwork's `kCFNetworkProxies…` constants (the
/// dictionary is "as described by <CFNetwork/CFHTTPStream.h>", NSURLSession.h), which only
/// Darwin's SDK declares, so this compiles on Linux too. The SDK declares some of them for
/// macOS only: in iOS's `CFProxySupport.h` `kCFNetworkProxiesHTTPEnable`, `…HTTPProxy` and
/// `…HTTPPort` are `CF_AVAILABLE(10_6, 2_0)`, but the `…HTTPS…` and `…SOCKS…` keys are
/// `CF_AVAILABLE(10_6, NA)` (CoreFoundation's `kCFStreamPropertySOCKSProxyHost` / `…Port`, iOS
/// 2.0, are "defined to match" `SOCKSProxy` / `SOCKSPort`; `SOCKSEnable` has no iOS constant).
/// The same strings are what apps pass on iOS, where URLSession reads them, but Apple documents
/// no guarantee there; iOS 17 / macOS 14 `URLSessionConfiguration.proxyConfigurations`
/// (Network's `ProxyConfiguration`, with SOCKS5 and credentials) is the documented route.
/// What URLSession cannot do that the native stack does:
/// - **Credentials**: the entries have no key for them. On Apple platforms the session's
///   delegate (``URLSessionTransportDelegate``) answers the first 407 of this session's HTTP
///   proxy with the ``ProxyServer/credentials`` (the caller's `.sessionDelegate` is asked
///   first); SOCKS5 authentication is not available.
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
            return [
                "HTTPEnable": 1, "HTTPProxy": server.host, "HTTPPort": port,
                "HTTPSEnable": 1, "HTTPSProxy": server.host, "HTTPSPort": port,
            ]
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
