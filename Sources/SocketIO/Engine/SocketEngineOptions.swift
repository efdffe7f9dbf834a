import EngineIOClient
import EngineIOProtocol
public import Foundation
import RealtimeHTTP
import RealtimeIO

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
/// Foundation's cookie (RealtimeHTTP has an `HTTPCookie` of its own).
typealias FoundationCookie = FoundationNetworking.HTTPCookie
#else
/// Foundation's cookie (RealtimeHTTP has an `HTTPCookie` of its own).
typealias FoundationCookie = Foundation.HTTPCookie
#endif

/// The engine's options, parsed from a `SocketIOClientConfiguration` in one place
/// (``apply(_:url:)``, what upstream's `setConfigs` does) and kept apart from the engine's
/// runtime state. The settable ones change here; a connection attempt uses the ``Snapshot``
/// ``snapshot(proxy:)`` takes at `connect()`, so a setting changed while connected takes
/// effect at the next connect, as upstream's do.
struct SocketEngineOptions {
    /// What one connection attempt uses, fixed at `connect()` (EngineIOClient's).
    typealias Snapshot = EngineRequestOptions

    var connectParams: [String: Any]?
    var cookies: [FoundationCookie]?
    var extraHeaders: [String: String]?
    var forcePolling = false
    var forceWebsockets = false
    var socketPath = "/engine.io/"
    var secure = false
    var selfSigned = false
    var security: CertificatePinning?
    var sessionDelegate: URLSessionDelegate?
    var compress = false
    var enableSOCKSProxy = false
    var version = SocketIOVersion.three
    /// `.eventLoopGroup`: the group an engine made by the app takes its loop from (a manager
    /// hands its engines its own loop instead).
    var eventLoopGroup: EventLoopGroup?
    /// Derived from the options above and the server's URL by ``apply(_:url:)`` and
    /// ``setConnectParams(_:url:)``.
    private(set) var urlPolling = URL(fileURLWithPath: "/")
    private(set) var urlWebSocket = URL(fileURLWithPath: "/")

    /// The defaults for `url` (`secure` from an `https`/`wss` scheme).
    init(url: URL) {
        self.apply([], url: url)
    }

    /// Sets what `config` names; options it does not name keep their values.
    mutating func apply(_ config: SocketIOClientConfiguration, url: URL) {
        if url.scheme == "https" || url.scheme == "wss" {
            self.secure = true
        }
        for option in config {
            switch option {
            case .connectParams(let params): self.connectParams = params
            case .cookies(let cookies): self.cookies = cookies
            case .extraHeaders(let headers): self.extraHeaders = headers
            case .sessionDelegate(let delegate): self.sessionDelegate = delegate
            case .forcePolling(let force): self.forcePolling = force
            case .forceWebsockets(let force): self.forceWebsockets = force
            case .path(let path): self.socketPath = path.hasSuffix("/") ? path : path + "/"
            case .secure(let secure): self.secure = secure
            case .selfSigned(let selfSigned): self.selfSigned = selfSigned
            case .security(let pinning): self.security = pinning
            case .compress: self.compress = true
            case .enableSOCKSProxy(let enable): self.enableSOCKSProxy = enable
            case .version(let num): self.version = num
            case .eventLoopGroup(let group): self.eventLoopGroup = group
            default: continue
            }
        }
        self.deriveURLs(url: url)
    }

    /// The public `connectParams` setter.
    mutating func setConnectParams(_ params: [String: Any]?, url: URL) {
        self.connectParams = params
        self.deriveURLs(url: url)
    }

    /// The Engine.IO revision `version` implies: `EIO=3` for `.two` (Socket.IO 2.x),
    /// `EIO=4` otherwise.
    var engineProtocolVersion: EngineProtocolVersion {
        self.version == .two ? .v3 : .v4
    }

    /// What a connection attempt starting now uses; `proxy` is the engine's explicit proxy.
    func snapshot(proxy: SocketProxy?) -> Snapshot {
        // `.two`: Socket.IO 2.x servers speak Engine.IO 3 (client-driven heartbeat,
        // length-prefixed polling payloads, type-prefixed binary WebSocket frames).
        let machine = EngineClientStateMachine.Configuration(
            forcePolling: self.forcePolling,
            forceWebSockets: self.forceWebsockets,
            protocolVersion: self.engineProtocolVersion,
            maximumPacketsPerPOST: EngineClientStateMachine.Configuration.pythonEngineIOPacketsPerPOST,
            reportsPings: true)
        // TLS: verification on unless `.selfSigned(true)`; `.security` adds trust roots.
        let tls =
            self.selfSigned
            ? TLSConfiguration(verification: .none)
            : TLSConfiguration(
                verification: self.security?.verifiesHostname == false ? .noHostnameVerification : .fullVerification,
                additionalTrustRootsPEM: self.security?.trustedCertificatesPEM ?? [])
        // The explicit proxy, else `.enableSOCKSProxy`'s (the environment's SOCKS proxy).
        let proxyConfiguration =
            proxy?.configuration
            ?? (self.enableSOCKSProxy ? SocketProxy.systemSOCKS().configuration : .direct)
        return Snapshot(
            machine: machine, urlPolling: self.urlPolling, urlWebSocket: self.urlWebSocket,
            extraHeaders: (self.extraHeaders ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            cookies: (self.cookies ?? []).map { ($0.name, $0.value) },
            tls: tls, proxy: proxyConfiguration, compress: self.compress)
    }

    private mutating func deriveURLs(url: URL) {
        var urlPolling = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        var urlWebSocket = urlPolling

        urlPolling.path = self.socketPath
        urlWebSocket.path = self.socketPath
        urlPolling.scheme = self.secure ? "https" : "http"
        urlWebSocket.scheme = self.secure ? "wss" : "ws"

        // The query is Engine.IO's (`EngineQuery`: transport, `b64=1` for polling, the
        // parameters encoded as upstream encodes them, `EIO`), set as text: `URLQueryItem`
        // would leave `+` raw for form-decoding servers to read as a space.
        let params = EngineQueryEncoding.parameters(for: self.connectParams)
        let version = self.engineProtocolVersion
        urlWebSocket.percentEncodedQuery = EngineQuery.base(transport: .webSocket, version: version, parameters: params)
        urlPolling.percentEncodedQuery = EngineQuery.base(transport: .polling, version: version, parameters: params)

        self.urlPolling = urlPolling.url ?? url
        self.urlWebSocket = urlWebSocket.url ?? url
    }
}
