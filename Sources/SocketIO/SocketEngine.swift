public import Dispatch
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The class that handles the engine.io protocol and transports.
///
/// See `SocketEnginePollable` and `SocketEngineWebsocket` upstream for the transport-specific
/// pieces; here polling runs over the library's HTTP client and WebSocket over its own
/// RFC 6455 client.
open class SocketEngine: NSObject, SocketEngineSpec, ConfigSettable, @unchecked Sendable {
    // `@unchecked Sendable`: every mutable field lives in `state`, one `SocketLock`.

    struct State {
        weak var client: SocketEngineClient?
        var closed = false
        var compress = false
        var connected = false
        var connectParams: [String: Any]?
        var cookies: [HTTPCookie]?
        var extraHeaders: [String: String]?
        var fastUpgrade = false
        var forcePolling = false
        var forceWebsockets = false
        var polling = true
        var probing = false
        var sid = ""
        var socketPath = "/engine.io/"
        var urlPolling = URL(fileURLWithPath: "/")
        var urlWebSocket = URL(fileURLWithPath: "/")
        var version = SocketIOVersion.three
        var websocket = false
        var enableSOCKSProxy = false
        var secure = false
        var selfSigned = false
        var security: CertificatePinning?
        var sessionDelegate: URLSessionDelegate?
        var session = EngineSession()
    }

    let state: SocketLock<State>

    // MARK: Properties

    private static let logType = "SocketEngine"

    /// The queue that all engine actions take place on.
    public let engineQueue = DispatchQueue(label: "com.socketio.engineHandleQueue")

    /// The client for this engine.
    public var client: SocketEngineClient? {
        get { self.state.withLock { $0.client } }
        set { self.state.withLock { $0.client = newValue } }
    }

    /// The connect parameters sent during a connect.
    public var connectParams: [String: Any]? {
        get { self.state.withLock { $0.connectParams } }
        set {
            self.state.withLock { state in
                state.connectParams = newValue
                (state.urlPolling, state.urlWebSocket) = SocketEngine.createURLs(url: self.url, state: state)
            }
        }
    }

    /// `true` if this engine is closed.
    public var closed: Bool { self.state.withLock { $0.closed } }

    /// If `true` the engine will attempt to use WebSocket compression.
    public var compress: Bool { self.state.withLock { $0.compress } }

    /// `true` if this engine is connected. Connected means that the initial poll connect has succeeded.
    public var connected: Bool { self.state.withLock { $0.connected } }

    /// An array of HTTPCookies that are sent during the connection.
    public var cookies: [HTTPCookie]? { self.state.withLock { $0.cookies } }

    /// A dictionary of extra http headers that will be set during connection.
    public var extraHeaders: [String: String]? {
        get { self.state.withLock { $0.extraHeaders } }
        set { self.state.withLock { $0.extraHeaders = newValue } }
    }

    /// When `true`, the engine is in the process of switching to WebSockets.
    public var fastUpgrade: Bool { self.state.withLock { $0.fastUpgrade } }

    /// When `true`, the engine will only use HTTP long-polling as a transport.
    public var forcePolling: Bool { self.state.withLock { $0.forcePolling } }

    /// When `true`, the engine will only use WebSockets as a transport.
    public var forceWebsockets: Bool { self.state.withLock { $0.forceWebsockets } }

    /// If `true`, the engine is currently in HTTP long-polling mode.
    public var polling: Bool { self.state.withLock { $0.polling } }

    /// If `true`, the engine is currently seeing whether it can upgrade to WebSockets.
    public var probing: Bool { self.state.withLock { $0.probing } }

    /// The session id for this engine.
    public var sid: String { self.state.withLock { $0.sid } }

    /// The path to engine.io.
    public var socketPath: String { self.state.withLock { $0.socketPath } }

    /// The url for polling.
    public var urlPolling: URL { self.state.withLock { $0.urlPolling } }

    /// The url for WebSockets.
    public var urlWebSocket: URL { self.state.withLock { $0.urlWebSocket } }

    /// The version of engine.io being used. Default is three.
    public var version: SocketIOVersion { self.state.withLock { $0.version } }

    /// If `true`, then the engine is currently in WebSockets mode.
    @available(*, deprecated, message: "No longer needed, if we're not polling, then we must be doing websockets")
    public var websocket: Bool { self.state.withLock { $0.websocket } }

    /// `true` once the engine was closed (upstream: the URLSession was invalidated).
    public var invalidated: Bool { self.state.withLock { $0.closed } }

    /// `true` while the WebSocket transport is open and in use.
    public var wsConnected: Bool {
        self.state.withLock { $0.connected && !$0.polling && $0.session.webSocket != nil }
    }

    /// Whether `.enableSOCKSProxy(true)` was set.
    ///
    /// - Important: Recorded only: the native transport connects directly.
    public var enableSOCKSProxy: Bool { self.state.withLock { $0.enableSOCKSProxy } }

    /// The url of the server.
    public let url: URL

    /// The HTTP and WebSocket clients this engine drives; `nil` when the platform has none.
    let transports: EngineTransports?

    // MARK: Initializers

    /// Creates a new engine.
    ///
    /// - parameter client: The client for this engine.
    /// - parameter url: The url for this engine.
    /// - parameter config: An array of configuration options for this engine.
    public convenience init(client: SocketEngineClient, url: URL, config: SocketIOClientConfiguration) {
        self.init(client: client, url: url, config: config, transports: SocketEngine.defaultTransports())
    }

    /// Creates an engine over the given transports (tests and benchmarks inject their own).
    init(client: SocketEngineClient, url: URL, config: SocketIOClientConfiguration, transports: EngineTransports?) {
        var initial = State()
        initial.client = client
        self.state = SocketLock(initial)
        self.url = url
        self.transports = transports

        super.init()

        setConfigs(config)
    }

    /// Whether HTTP long-polling is available in this build.
    package static var supportsPolling: Bool {
        return EngineTransports.native().http != nil
    }

    /// The native HTTP/1.1 and WebSocket clients of `RealtimeHTTP`.
    static func defaultTransports() -> EngineTransports? {
        return EngineTransports.native()
    }

    /// Creates a new engine.
    ///
    /// - parameter client: The client for this engine.
    /// - parameter url: The url for this engine.
    /// - parameter options: The options for this engine.
    public required convenience init(client: SocketEngineClient, url: URL, options: [String: Any]?) {
        self.init(client: client, url: url, config: options?.toSocketConfiguration() ?? [])
    }

    // MARK: Configuration

    static func createURLs(url: URL, state: State) -> (URL, URL) {
        var urlPolling = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        var urlWebSocket = urlPolling

        urlPolling.path = state.socketPath
        urlWebSocket.path = state.socketPath

        let httpScheme = state.secure ? "https" : "http"
        let wsScheme = state.secure ? "wss" : "ws"
        urlPolling.scheme = httpScheme
        urlWebSocket.scheme = wsScheme

        var queryItems: [URLQueryItem] = []
        if let params = state.connectParams {
            for (key, value) in params.sorted(by: { $0.key < $1.key }) {
                queryItems.append(URLQueryItem(name: key, value: "\(value)"))
            }
        }
        let eio = URLQueryItem(name: "EIO", value: state.version.rawValue >= 3 ? "4" : "3")

        urlWebSocket.queryItems = [URLQueryItem(name: "transport", value: "websocket")] + queryItems + [eio]
        urlPolling.queryItems = [URLQueryItem(name: "transport", value: "polling"),
                                 URLQueryItem(name: "b64", value: "1")] + queryItems + [eio]

        return (urlPolling.url ?? url, urlWebSocket.url ?? url)
    }

    /// Called when an `ConfigSettable` should set/update its configs from a given configuration.
    ///
    /// - parameter config: The `SocketIOClientConfiguration` that should be used to set/update configs.
    open func setConfigs(_ config: SocketIOClientConfiguration) {
        let url = self.url
        self.state.withLock { state in
            if url.scheme == "https" || url.scheme == "wss" {
                state.secure = true
            }

            for option in config {
                switch option {
                case let .connectParams(params):
                    state.connectParams = params
                case let .cookies(cookies):
                    state.cookies = cookies
                case let .extraHeaders(headers):
                    state.extraHeaders = headers
                case let .sessionDelegate(delegate):
                    state.sessionDelegate = delegate
                case let .forcePolling(force):
                    state.forcePolling = force
                case let .forceWebsockets(force):
                    state.forceWebsockets = force
                case let .path(path):
                    state.socketPath = path

                    if !state.socketPath.hasSuffix("/") {
                        state.socketPath += "/"
                    }
                case let .secure(secure):
                    state.secure = secure
                case let .selfSigned(selfSigned):
                    state.selfSigned = selfSigned
                case let .security(pinning):
                    state.security = pinning
                case .compress:
                    state.compress = true
                case let .enableSOCKSProxy(enable):
                    state.enableSOCKSProxy = enable
                case let .version(num):
                    state.version = num
                default:
                    continue
                }
            }

            (state.urlPolling, state.urlWebSocket) = SocketEngine.createURLs(url: url, state: state)
        }
    }

    // MARK: SocketEngineSpec

    /// Starts the connection to the server: the polling handshake (then a WebSocket upgrade
    /// unless `.forcePolling(true)`), or a WebSocket straight away with `.forceWebsockets(true)`.
    open func connect() {
        let (generation, teardown) = self.state.withLock { state -> (Int, EngineSession.Teardown) in
            let teardown = state.session.reset()
            state.closed = false
            state.connected = false
            state.sid = ""
            state.polling = !state.forceWebsockets
            state.probing = false
            state.fastUpgrade = false
            state.websocket = state.forceWebsockets
            return (state.session.generation, teardown)
        }
        self.finish(teardown, sendClosePacket: false, polling: false)

        DefaultSocketLogger.Logger.log("Starting engine. Server: \(self.url.host ?? "")", type: SocketEngine.logType)

        guard self.version == .three else {
            // Engine.IO 3 frames polling payloads differently; only socket.io 3+ servers are spoken to.
            self.fail(generation: generation, reason: "socket.io 2 (Engine.IO 3) servers are not supported; use .version(.three)")
            return
        }

        guard let transports = self.transports else {
            self.fail(generation: generation, reason: "No transport available for this platform")
            return
        }

        let task = Task {
            if self.forceWebsockets {
                await self.openWebSocketDirectly(generation: generation, transport: transports.webSocket)
            } else if let http = transports.http {
                await self.openPolling(generation: generation, transport: http)
            } else {
                self.fail(generation: generation, reason: "HTTP long-polling is not available; use .forceWebsockets(true)")
            }
        }
        self.own(task, generation: generation)
    }

    /// Called when an error happens during execution. Causes a disconnection.
    open func didError(reason: String) {
        DefaultSocketLogger.Logger.error("\(reason)", type: SocketEngine.logType)
        let client = self.client
        client?.engineDidError(reason: reason)
        disconnect(reason: reason)
    }

    /// Disconnects from the server.
    ///
    /// Sends the engine.io close packet when connected, stops every transport task and
    /// reports `engineDidClose(reason:)` to the client.
    ///
    /// - parameter reason: The reason for the disconnection. This is communicated up to the client.
    open func disconnect(reason: String) {
        DefaultSocketLogger.Logger.log("Engine is being closed.", type: SocketEngine.logType)

        let closing = self.state.withLock { state in
            let wasConnected = state.connected && !state.closed
            let closing = state.session.close()
            state.closed = true
            state.connected = false
            state.probing = false
            return (wasConnected: wasConnected, polling: state.polling, closing: closing, client: state.client)
        }

        self.finish(closing.closing, sendClosePacket: closing.wasConnected, polling: closing.polling)
        closing.client?.engineDidClose(reason: reason)
    }

    /// Called to switch from HTTP long-polling to WebSockets. After calling this method the engine will be in
    /// WebSocket mode.
    ///
    /// **You shouldn't call this directly**
    open func doFastUpgrade() {
        self.state.withLock { state in
            state.fastUpgrade = false
            state.probing = false
            state.polling = false
            state.websocket = true
        }
        self.kickWriter()
    }

    /// Causes any packets that were waiting for POSTing to be sent through the WebSocket.
    ///
    /// **You shouldn't call this directly**
    open func flushWaitingForPostToWebSocket() {
        self.kickWriter()
    }

    /// Parses raw binary received from engine.io.
    ///
    /// - parameter data: The data to parse.
    open func parseEngineData(_ data: Data) {
        DefaultSocketLogger.Logger.log("Got binary data: \(data.count) bytes", type: SocketEngine.logType)
        let client = self.client
        client?.parseEngineBinaryData(data)
    }

    /// Parses a raw engine.io packet.
    ///
    /// - parameter message: The message to parse.
    open func parseEngineMessage(_ message: String) {
        self.handleEngineText(Substring(message), generation: self.state.withLock { $0.session.generation })
    }

    /// Writes a message to engine.io, independent of transport.
    ///
    /// Writes keep their order across transports (polling POSTs, the upgrade, WebSocket frames).
    /// The content is never logged.
    ///
    /// - parameter msg: The message to send.
    /// - parameter type: The type of this message.
    /// - parameter data: Any data that this message has.
    /// - parameter completion: Callback called on transport write completion.
    open func write(_ msg: String, withType type: SocketEnginePacketType, withData data: [Data], completion: (() -> ())? = nil) {
        let accepted = self.state.withLock { state -> Bool in
            guard state.connected, !state.closed else { return false }
            var frames = [EngineFrame.text("\(type.rawValue)\(msg)")]
            frames += data.map { EngineFrame.binary($0) }
            state.session.enqueue(frames, completion: completion.map(UncheckedSendable.init))
            return true
        }

        guard accepted else {
            DefaultSocketLogger.Logger.log("Tried writing while not connected", type: SocketEngine.logType)
            completion?()
            return
        }

        self.kickWriter()
    }
}
