public import Dispatch
package import EngineIOClient
public import Foundation
import RealtimeIO
import RealtimeSync
import SocketIOProtocol

/// A manager for a socket.io connection.
///
/// A `SocketManager` is responsible for multiplexing multiple namespaces through a single `SocketEngineSpec`.
///
/// ```swift
/// let manager = SocketManager(socketURL: URL(string:"http://localhost:8080/")!)
/// let defaultNamespaceSocket = manager.defaultSocket
/// let swiftSocket = manager.socket(forNamespace: "/swift")
///
/// // defaultNamespaceSocket and swiftSocket both share a single connection to the server
/// ```
///
/// Sockets created through the manager are retained by the manager. So at the very least, a single strong reference
/// to the manager must be maintained to keep sockets alive.
///
/// To disconnect a socket and remove it from the manager, either call `SocketIOClient.disconnect()` on the socket,
/// or call one of the `disconnectSocket` methods on this class.
///
/// - Important: Every member is safe to call from any thread (all mutable state sits behind
///   one lock); engine events are processed, and handlers called, on `handleQueue`.
open class SocketManager: NSObject, SocketManagerSpec, SocketParsable, SocketDataBufferable, ConfigSettable,
    @unchecked Sendable
{
    // `@unchecked Sendable`: every mutable field lives in `state`, the manager's half of its
    // `SocketConnectionCore`, whose one mutex the manager's sockets and the engines it makes
    // lock too; user callbacks and engines are called only after the lock is released.

    static let logType = "SocketManager"

    /// Most binary packets kept while their attachments arrive (the session machine's bound).
    static var maximumWaitingPackets: Int { SocketSessionMachine.maximumWaitingPackets }

    struct State {
        var config: SocketIOClientConfiguration
        /// The options as parsed from ``config`` and changed by the public setters.
        var options = SocketManagerOptions()
        var engine: SocketEngineSpec? {
            didSet {
                if self.engine !== self.coreEngine { self.coreEngine = nil }
            }
        }
        /// ``engine`` when this manager made it (its half is in this core, and it is not a
        /// subclass): an emit writes to it in the emit's own section.
        var coreEngine: SocketEngine?
        var nsps: [String: SocketIOClient] = [:]
        /// The session's packets, the bound on the work queued for handlers, reconnection and
        /// the manager's status (`session.status`, the one place it is kept): one machine.
        var session = SocketSessionMachine(wire: .json, revision: SocketIOVersion.three.protocolRevision)
        var proxy: SocketProxy?
    }

    /// The session's one state and lock: this manager's half, its sockets' halves, the timer
    /// source (``SocketConnectionCore``).
    let core: SocketConnectionCore

    /// The manager's half of ``core``'s state.
    let state: ManagerStateLock

    /// Whether this manager is an instance of a subclass, whose override of upstream's open
    /// `parseEngineMessage(_:)` must see every message: then its engine hands every message to
    /// that method instead of taking the core's step in its own section. Decided at `init` from
    /// the class (Swift cannot tell an override from the inherited method).
    let deliversThroughOpenMethods: Bool

    /// The one mutex of this manager's session (the core's): the engines it makes lock it too.
    var lockDomain: LockDomain { self.core.lockDomain }

    /// The manager's one timer source (its core's): ack deadlines of its sockets, reconnect
    /// tries, and the heartbeat of the engines it creates.
    package var timers: any SocketTimerSource { self.core.timers }

    /// The event loop this manager's session lives on (the native stack): its engines'
    /// connections and its timers; one loop of `.eventLoopGroup`'s group, or of the process
    /// default's, taken at `init`.
    let eventLoop: EventLoop

    /// The loop a manager made with `config` takes: the next of its `.eventLoopGroup`'s, or of
    /// the process default group's.
    private static func eventLoop(for config: SocketIOClientConfiguration) -> EventLoop {
        for case .eventLoopGroup(let group) in config { return group.next() }
        return EventLoopGroup.shared.next()
    }

    // MARK: Properties

    /// The socket associated with the default namespace ("/").
    public var defaultSocket: SocketIOClient {
        return socket(forNamespace: "/")
    }

    /// The URL of the socket.io server.
    ///
    /// If changed after calling `init`, `forceNew` must be set to `true`, or it will only connect to the url set in the
    /// init.
    public let socketURL: URL

    /// The HTTP and WebSocket stack this manager's engines use.
    public let transport: SocketEngine.Transport

    /// The configuration for this client.
    ///
    /// **Some configs will not take affect until after a reconnect if set after calling a connect method**.
    public var config: SocketIOClientConfiguration {
        get {
            return self.state.withLock { $0.config }
        }

        set {
            if status.active {
                DefaultSocketLogger.Logger.log(
                    "Setting configs on active manager. Some configs may not be applied until reconnect",
                    type: SocketManager.logType)
            }

            setConfigs(newValue)
        }
    }

    /// The engine for this manager.
    public var engine: SocketEngineSpec? {
        get { self.state.withLock { $0.engine } }
        set {
            // The engine replaced is released after the section: its `deinit` locks the
            // session's mutex too.
            let replaced = self.state.withLock { state in
                defer { state.engine = newValue }
                return state.engine
            }
            withExtendedLifetime(replaced) {}
        }
    }

    /// If `true` then every time `connect` is called, a new engine will be created.
    public var forceNew: Bool {
        get { self.state.withLock { $0.options.forceNew } }
        set { self.state.withLock { $0.options.forceNew = newValue } }
    }

    /// The queue that all interaction with the client should occur on. This is the queue that event handlers are
    /// called on.
    ///
    /// **This should be a serial queue! Concurrent queues are not supported and might cause crashes and races**.
    public var handleQueue: DispatchQueue {
        get { self.state.withLock { $0.options.handleQueue } }
        set { self.state.withLock { $0.options.handleQueue = newValue } }
    }

    /// The sockets in this manager indexed by namespace.
    public var nsps: [String: SocketIOClient] {
        get { self.state.withLock { $0.nsps } }
        set {
            // The sockets replaced are released after the section: a socket's `deinit` takes
            // its half out of the core, under this lock.
            let replaced = self.state.withLock { state in
                defer { state.nsps = newValue }
                return state.nsps
            }
            withExtendedLifetime(replaced) {}
        }
    }

    /// If `true`, this client will try and reconnect on any disconnects.
    public var reconnects: Bool {
        get { self.state.withLock { $0.options.reconnects } }
        set { self.state.withLock { $0.options.reconnects = newValue } }
    }

    /// The minimum number of seconds to wait before attempting to reconnect.
    public var reconnectWait: Int {
        get { self.state.withLock { $0.options.reconnectWait } }
        set { self.state.withLock { $0.options.reconnectWait = newValue } }
    }

    /// The maximum number of seconds to wait before attempting to reconnect.
    public var reconnectWaitMax: Int {
        get { self.state.withLock { $0.options.reconnectWaitMax } }
        set { self.state.withLock { $0.options.reconnectWaitMax = newValue } }
    }

    /// The randomization factor for calculating reconnect jitter.
    public var randomizationFactor: Double {
        get { self.state.withLock { $0.options.randomizationFactor } }
        set { self.state.withLock { $0.options.randomizationFactor = newValue } }
    }

    /// The status of this manager.
    ///
    /// Read from the manager's session machine, which every status change goes through.
    public var status: SocketIOStatus {
        return SocketIOStatus(self.state.withLock { $0.session.status })
    }

    /// How this manager's packets are encoded (the `.parser` option; `.json` by default).
    public var parser: SocketParser {
        return self.state.withLock { $0.options.parser }
    }

    /// The version of socket.io in use.
    public var version: SocketIOVersion {
        return self.state.withLock { $0.options.version }
    }

    /// A list of packets that are waiting for binary data.
    ///
    /// The way that socket.io works all data should be sent directly after each packet.
    /// So this should ideally be an array of one packet waiting for data.
    ///
    /// **This should not be modified directly.**
    public var waitingPackets: [SocketPacket] {
        get { self.upstreamWaitingPackets() }
        set { self.replaceWaitingPackets(with: newValue) }
    }

    var reconnectAttempts: Int {
        return self.state.withLock { $0.options.reconnectAttempts }
    }

    // MARK: Initializers

    /// Type safe way to create a new SocketIOClient. `opts` can be omitted.
    ///
    /// - parameter socketURL: The url of the socket.io server.
    /// - parameter config: The config for this socket.
    public init(socketURL: URL, config: SocketIOClientConfiguration = []) {
        self.eventLoop = Self.eventLoop(for: config)
        self.core = SocketConnectionCore(manager: State(config: config), timers: EventLoopTimerSource(eventLoop: self.eventLoop))
        self.state = ManagerStateLock(core: self.core)
        self.deliversThroughOpenMethods = Self.self != SocketManager.self
        self.socketURL = socketURL
        self.transport = .automatic

        super.init()

        setConfigs(config)
    }

    /// Creates a manager whose engines run on `transport` (URLSession or the native stack).
    ///
    /// ```swift
    /// let manager = SocketManager(socketURL: url, config: [.log(false)], transport: .urlSession)
    /// ```
    ///
    /// - parameter socketURL: The url of the socket.io server.
    /// - parameter config: The config for this socket.
    /// - parameter transport: The HTTP and WebSocket stack (see ``SocketEngine/Transport``);
    ///   `init(socketURL:config:)` uses ``SocketEngine/Transport/automatic``.
    public init(socketURL: URL, config: SocketIOClientConfiguration = [], transport: SocketEngine.Transport) {
        self.eventLoop = Self.eventLoop(for: config)
        self.core = SocketConnectionCore(manager: State(config: config), timers: EventLoopTimerSource(eventLoop: self.eventLoop))
        self.state = ManagerStateLock(core: self.core)
        self.deliversThroughOpenMethods = Self.self != SocketManager.self
        self.socketURL = socketURL
        self.transport = transport

        super.init()

        setConfigs(config)
    }

    /// A manager whose timers come from `timers` (tests drive time with their own source).
    package init(
        socketURL: URL, config: SocketIOClientConfiguration, transport: SocketEngine.Transport = .automatic,
        timers: any SocketTimerSource
    ) {
        self.eventLoop = Self.eventLoop(for: config)
        self.core = SocketConnectionCore(manager: State(config: config), timers: timers)
        self.state = ManagerStateLock(core: self.core)
        self.deliversThroughOpenMethods = Self.self != SocketManager.self
        self.socketURL = socketURL
        self.transport = transport

        super.init()

        setConfigs(config)
    }

    /// Not so type safe way to create a SocketIOClient, meant for Objective-C compatiblity.
    /// If using Swift it's recommended to use `init(socketURL: URL, config: SocketIOClientConfiguration)`
    ///
    /// - parameter socketURL: The url of the socket.io server.
    /// - parameter config: The config for this socket.
    public convenience init(socketURL: URL, config: [String: Any]?) {
        self.init(socketURL: socketURL, config: config?.toSocketConfiguration() ?? [])
    }

    deinit {
        DefaultSocketLogger.Logger.log("Manager is being released", type: SocketManager.logType)

        let engine = self.state.withLock { $0.engine }
        engine?.disconnect(reason: "Manager Deinit")
        // The sockets hold the core; without the manager's half they no longer hold each other.
        self.core.releaseManager()
    }

    // MARK: Methods

    /// Connects the underlying transport and the default namespace socket.
    ///
    /// Does nothing while connected or while a first connect is under way. While a reconnect
    /// attempt is under way (status `connecting` after a `reconnectAttempt`), it starts a new
    /// connection, as upstream does, so an attempt that hangs does not hold the socket.
    ///
    /// One critical section decides: the engine is installed (when there is none, or with
    /// `forceNew`; made just before, outside the lock) and the status becomes `connecting`
    /// together, so calls from many threads at once start one engine. The replaced engine is
    /// closed and the new one connected after the lock is released.
    ///
    /// Override if you wish to attach a custom `SocketEngineSpec`.
    open func connect() {
        enum Plan {
            case alreadyActive
            case makeEngine(SocketIOClientConfiguration, SocketProxy?)
            case connect(SocketEngineSpec?, replaced: SocketEngineSpec?)
        }
        // A new engine is made between two critical sections, not in one: it shares this
        // manager's mutex, and its initializer takes it. The first section says one is
        // needed (none yet, or `forceNew`, and the status lets a connect start); the next
        // decides with it in hand. An engine made for a connect another thread's call
        // decided first is dropped unconnected.
        var made: SocketEngine?
        while true {
            let plan = self.state.withLock { state -> Plan in
                let needsEngine = state.engine == nil || state.options.forceNew
                if needsEngine, made == nil {
                    guard state.session.wouldConnect else { return .alreadyActive }
                    return .makeEngine(state.config, state.proxy)
                }
                // As upstream (socket.io-client-swift PR #1375): `connecting` during a reconnect
                // attempt starts a new connection, since an attempt that hangs would otherwise
                // hold every later attempt back; only a first connect under way returns.
                guard state.session.connectRequested() else {
                    return .alreadyActive
                }
                var replaced: SocketEngineSpec?
                if needsEngine, let engine = made {
                    replaced = state.engine
                    state.engine = engine
                    // A backlog left from the last engine holds the new one's reads back too:
                    // the session's `readingPaused` is what its readers ask.
                    state.coreEngine = engine
                }
                return .connect(state.engine, replaced: replaced)
            }
            switch plan {
            case .makeEngine(let config, let proxy):
                // Its initializer takes this manager's stack, loop and timers (its client).
                let engine = SocketEngine(client: self, url: self.socketURL, config: config)
                engine.proxy = proxy
                made = engine
            case .alreadyActive:
                DefaultSocketLogger.Logger.log("Tried connecting an already active socket", type: SocketManager.logType)
                return
            case .connect(let engine, let replaced):
                if let replaced {
                    DefaultSocketLogger.Logger.log("Adding engine", type: SocketManager.logType)
                    replaced.client = nil
                    // Close old engine so it will not leak.
                    replaced.disconnect(reason: "Adding new engine")
                }
                engine?.connect()
                return
            }
        }
    }

    /// Connects a socket through this manager's engine.
    ///
    /// The socket's namespace machine sends CONNECT (with the payload) once the engine is open,
    /// and connects the engine if it is not.
    ///
    /// - parameter socket: The socket who we should connect through this manager.
    /// - parameter payload: Optional payload to send on connect (never logged).
    open func connectSocket(_ socket: SocketIOClient, withPayload payload: [String: Any]? = nil) {
        socket.joinNamespace(withPayload: payload)
    }

    /// Called when the manager has disconnected from socket.io.
    ///
    /// - parameter reason: The reason for the disconnection.
    open func didDisconnect(reason: String) {
        forAll { socket in
            socket.transportDidClose(reason: reason, willReconnect: false)
        }
    }

    /// Disconnects the manager and all associated sockets.
    open func disconnect() {
        DefaultSocketLogger.Logger.log("Manager closing", type: SocketManager.logType)

        let engine = self.state.withLock { state -> SocketEngineSpec? in
            state.session.disconnectRequested()
            return state.engine
        }

        engine?.disconnect(reason: "Disconnect")
    }

    /// Disconnects the given socket.
    ///
    /// This will remove the socket for the manager's control, and make the socket instance useless and ready for
    /// releasing.
    ///
    /// - parameter socket: The socket to disconnect.
    open func disconnectSocket(_ socket: SocketIOClient) {
        socket.leave()
    }

    /// Disconnects the socket associated with `forNamespace`.
    ///
    /// This will remove the socket for the manager's control, and make the socket instance useless and ready for
    /// releasing.
    ///
    /// - parameter nsp: The namespace to disconnect from.
    open func disconnectSocket(forNamespace nsp: String) {
        guard let socket = self.state.withLock({ $0.nsps.removeValue(forKey: nsp) }) else {
            DefaultSocketLogger.Logger.log(
                "Could not find socket for \(nsp) to disconnect",
                type: SocketManager.logType)

            return
        }

        disconnectSocket(socket)
    }

    /// Sends a client event to all sockets in `nsps`
    ///
    /// - parameter event: The event to emit.
    /// - parameter data: The items the event carries.
    open func emitAll(clientEvent event: SocketClientEvent, data: [Any]) {
        forAll { socket in
            socket.handleClientEvent(event, data: data)
        }
    }

    /// Sends an event to the server on all namespaces in this manager.
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The data to send with this event.
    open func emitAll(_ event: String, _ items: SocketData...) {
        emitAll(event, withItems: items)
    }

    /// Sends an event to the server on all namespaces in this manager.
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The data to send with this event.
    open func emitAll(_ event: String, withItems items: [SocketData]) {
        forAll { socket in
            socket.emit(event, with: items, completion: nil)
        }
    }

    func forAll(do body: (SocketIOClient) throws -> Void) rethrows {
        let sockets = self.state.withLock { Array($0.nsps.values) }
        for socket in sockets {
            try body(socket)
        }
    }

    /// Tries to reconnect to the server.
    ///
    /// This will cause a `SocketClientEvent.reconnect` event to be emitted, as well as
    /// `SocketClientEvent.reconnectAttempt` events.
    open func reconnect() {
        let (reconnecting, engine) = self.state.withLock { ($0.session.isReconnecting, $0.engine) }
        guard !reconnecting else { return }

        engine?.disconnect(reason: "manual reconnect")
    }

    /// Removes the socket from the manager's control. One of the disconnect methods should be called before calling this
    /// method.
    ///
    /// After calling this method the socket should no longer be considered usable.
    ///
    /// - parameter socket: The socket to remove.
    /// - returns: The socket removed, if it was owned by the manager.
    @discardableResult
    open func removeSocket(_ socket: SocketIOClient) -> SocketIOClient? {
        return self.state.withLock { $0.nsps.removeValue(forKey: socket.nsp) }
    }

    /// Sets manager specific configs.
    ///
    /// parameter config: The configs that should be set.
    open func setConfigs(_ config: SocketIOClientConfiguration) {
        let (engine, update) = self.state.withLock { state -> (SocketEngineSpec?, SocketManagerOptions.LoggerUpdate) in
            let update = state.options.apply(config)
            state.config = config
            // The session reads the wire and the revision just set (once here, not per message).
            state.session.setRevision(state.options.version.protocolRevision)
            state.session.wire = state.options.parser.kind == .msgpack ? .messagePack : .json

            if socketURL.absoluteString.hasPrefix("https://") {
                state.config.insert(.secure(true))
            }

            state.config.insert(.path("/socket.io/"), replacing: false)
            return (state.engine, update)
        }

        if let loggerUpdate = update.logger {
            DefaultSocketLogger.Logger = loggerUpdate
        }
        if let logUpdate = update.log {
            DefaultSocketLogger.Logger.log = logUpdate
        }

        // If `ConfigSettable` & `SocketEngineSpec`, update its configs.
        if let settableEngine = engine as? SocketEngine {
            settableEngine.setConfigs(self.config)
        }
    }

    // MARK: SocketEngineClient

    /// Called when the engine closes.
    ///
    /// - parameter reason: The reason that the engine closed.
    open func engineDidClose(reason: String) {
        // Partial binary packets end with the session (upstream clears `waitingPackets`).
        self.state.withLock { $0.session.engineClosed() }
        self.onHandleQueue {
            self._engineDidClose(reason: reason)
        }
    }

    /// Called when the engine errors.
    ///
    /// - parameter reason: The reason the engine errored.
    open func engineDidError(reason: String) {
        self.onHandleQueue {
            self._engineDidError(reason: reason)
        }
    }

    /// Called when the engine opens.
    ///
    /// - parameter reason: The reason the engine opened.
    open func engineDidOpen(reason: String) {
        self.onHandleQueue {
            self._engineDidOpen(reason: reason)
        }
    }

    /// Called when the engine receives a ping message.
    open func engineDidReceivePing() {
        self.onHandleQueue {
            self.emitAll(clientEvent: .ping, data: [])
        }
    }

    /// Called when the sends a ping to the server.
    open func engineDidSendPing() {
        self.onHandleQueue {
            self.emitAll(clientEvent: .ping, data: [])
        }
    }

    /// Called when the engine receives a pong message.
    open func engineDidReceivePong() {
        self.onHandleQueue {
            self.emitAll(clientEvent: .pong, data: [])
        }
    }

    /// Called when the sends a pong to the server.
    open func engineDidSendPong() {
        self.onHandleQueue {
            self.emitAll(clientEvent: .pong, data: [])
        }
    }

    /// Called when when upgrading the http connection to a websocket connection.
    ///
    /// - parameter headers: The http headers.
    open func engineDidWebsocketUpgrade(headers: [String: String]) {
        let box = UncheckedSendable(headers)
        self.onHandleQueue {
            self.emitAll(clientEvent: .websocketUpgrade, data: [box.value])
        }
    }

    /// Called when the engine has a message that must be parsed.
    ///
    /// - parameter msg: The message that needs parsing.
    open func parseEngineMessage(_ msg: String) {
        self.receiveFromEngine { $0.receive(text: msg) }
    }

    /// Called when the engine receives binary data.
    ///
    /// - parameter data: The data the engine received.
    open func parseEngineBinaryData(_ data: Data) {
        self.receiveFromEngine { $0.receive(binary: Array(data)) }
    }

    /// Returns a `SocketIOClient` for the given namespace. This socket shares a transport with the manager.
    ///
    /// Calling multiple times returns the same socket.
    ///
    /// Sockets created from this method are retained by the manager.
    /// Call one of the `disconnectSocket` methods on this class to remove the socket from manager control.
    /// Or call `SocketIOClient.disconnect()` on the client.
    ///
    /// - parameter nsp: The namespace for the socket.
    /// - returns: A `SocketIOClient` for the given namespace.
    open func socket(forNamespace nsp: String) -> SocketIOClient {
        let nsp = nsp.hasPrefix("/") ? nsp : "/" + nsp
        if let socket = self.state.withLock({ $0.nsps[nsp] }) {
            return socket
        }

        // Created outside the lock: the socket's initializer reads `version`.
        let client = SocketIOClient(manager: self, nsp: nsp)
        return self.state.withLock { state in
            if let socket = state.nsps[nsp] {
                return socket
            }
            state.nsps[nsp] = client
            return client
        }
    }
}
