public import Foundation
import ProxyCodec
import RealtimeHTTP

/// A proxy for a manager's connections: HTTP `CONNECT` or SOCKS5, with optional credentials,
/// or the proxies named by the environment.
///
/// Set it on ``SocketManager/proxy`` before connecting; polling requests and the WebSocket
/// (direct or upgrade) then go through a tunnel, and TLS runs inside it, verified against the
/// server's name (not the proxy's):
///
/// ```swift
/// let manager = SocketManager(socketURL: URL(string: "https://chat.example.com")!)
/// manager.proxy = .socks5(host: "10.0.0.1", port: 1080, username: "me", password: "secret")
/// // or: manager.proxy = .http(host: "proxy.corp", port: 3128)
/// // or: manager.proxy = .environment()   // HTTPS_PROXY / HTTP_PROXY / ALL_PROXY / NO_PROXY
/// manager.defaultSocket.connect()
/// ```
///
/// Failures reach the client as errors with a clear message (and reconnection as configured):
/// wrong credentials (HTTP 407, SOCKS5 authentication), a refused target (the HTTP status or
/// SOCKS5 reply code), a proxy that breaks its protocol or closes.
///
/// - Important: Over URLSession (``SocketEngine/Transport/urlSession``, the default on Apple
///   platforms) the proxy becomes the engine session's `connectionProxyDictionary` (HTTP and
///   HTTPS entries for `.http`, SOCKS entries for `.socks5`), for polling and WebSocket alike.
///   What URLSession cannot do: send the credentials (a 407 goes to `.sessionDelegate`'s
///   authentication challenge instead; SOCKS5 authentication is unavailable), report the
///   proxy's failures as the typed errors above (URLSession's `URLError` text arrives), or
///   turn a system-wide proxy off with `.direct`; FoundationNetworking on Linux ignores the
///   dictionary. It is a manager property rather than a new `SocketIOClientOption` case so that
///   code switching exhaustively over upstream's option enum keeps compiling.
public struct SocketProxy: Sendable, Hashable, CustomStringConvertible {
    let configuration: ProxyConfiguration

    init(configuration: ProxyConfiguration) {
        self.configuration = configuration
    }

    /// No proxy: connect directly.
    public static var direct: SocketProxy { SocketProxy(configuration: .direct) }

    /// An HTTP proxy, asked for a tunnel with `CONNECT host:port` (also for `http`/`ws`), with
    /// `Proxy-Authorization: Basic` when a user name is given.
    public static func http(host: String, port: Int, username: String? = nil, password: String? = nil) -> SocketProxy {
        Self.server(.httpConnect, host: host, port: port, username: username, password: password)
    }

    /// A SOCKS5 proxy (RFC 1928) with username/password authentication (RFC 1929) when a user
    /// name is given. The proxy resolves the server's name.
    public static func socks5(host: String, port: Int, username: String? = nil, password: String? = nil) -> SocketProxy {
        Self.server(.socks5, host: host, port: port, username: username, password: password)
    }

    /// A proxy given as a URL: `http://[user:password@]host[:port]` or
    /// `socks5://[user:password@]host[:port]` (`socks5h://` too). `nil` for another scheme.
    public static func url(_ url: URL) -> SocketProxy? {
        ProxyConfiguration.parseProxyURL(url.absoluteString).map { SocketProxy(configuration: .server($0)) }
    }

    /// The proxies named by the process environment, read now: `https_proxy` for `https`/`wss`,
    /// `http_proxy` for `http`/`ws`, `all_proxy` otherwise (lowercase or uppercase names,
    /// lowercase first), except for hosts listed in `no_proxy`.
    public static func environment() -> SocketProxy {
        SocketProxy(configuration: .environment())
    }

    /// What `.enableSOCKSProxy(true)` means on the native transport: upstream asks URLSession
    /// for the system's SOCKS proxy; here the system's SOCKS proxy is the environment's:
    /// `all_proxy` / `ALL_PROXY`, else `socks_proxy` / `SOCKS_PROXY`, when it names a SOCKS5
    /// proxy (`socks5://`, `socks5h://`, or a bare `host:port`), with `no_proxy` exceptions.
    /// With none set, connections go direct (as URLSession does without a system SOCKS proxy).
    static func systemSOCKS(_ variables: [String: String] = ProcessInfo.processInfo.environment) -> SocketProxy {
        func value(_ name: String) -> String? {
            let found = variables[name] ?? variables[name.uppercased()]
            return found?.isEmpty == true ? nil : found
        }
        let text = value("all_proxy") ?? value("socks_proxy")
        guard let server = text.flatMap({ ProxyConfiguration.parseProxyURL($0, defaultKind: .socks5) }),
            server.kind == .socks5
        else { return .direct }
        var environment = ProxyEnvironment(variables: ["no_proxy": value("no_proxy") ?? ""])
        environment.allProxy = server
        return SocketProxy(configuration: .environment(environment))
    }

    private static func server(
        _ kind: ProxyServer.Kind, host: String, port: Int,
        username: String?, password: String?
    ) -> SocketProxy {
        let credentials = username.map { ProxyCredentials(username: $0, password: password ?? "") }
        let server = ProxyServer(kind: kind, host: host, port: UInt16(clamping: port), credentials: credentials)
        return SocketProxy(configuration: .server(server))
    }

    /// Names the proxy without its password.
    public var description: String { self.configuration.description }
}
