public import Dispatch
package import EngineIOClient
import EngineIOProtocol
public import Foundation
import RealtimeIO
import RealtimeSync

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The class that handles the engine.io protocol and transports.
///
/// See `SocketEnginePollable` and `SocketEngineWebsocket` upstream for the transport-specific
/// pieces; here polling runs over the library's HTTP client and WebSocket over its own
/// RFC 6455 client.
open class SocketEngine: NSObject, SocketEngineSpec, ConfigSettable, @unchecked Sendable {
    // `@unchecked Sendable`: every mutable field lives in `state`, the engine's half of its
    // `SocketConnectionCore` (its client's, when the client is a `SocketManager`: one lock per
    // session); `transports` and `timerOverride` are written only by the initializers.

    struct State {
        weak var client: SocketEngineClient? {
            didSet {
                // Only the manager that made the engine is reached past its open methods.
                if self.client !== self.coreClient { self.coreClient = nil }
            }
        }
        /// The client when it is the `SocketManager` whose core holds this state and it is not a
        /// subclass: a WebSocket message takes its core's step in the section that fed the
        /// engine's machine (``SocketEngine/drive(_:_:)``). Set at `init`, cleared when the
        /// client changes.
        weak var coreClient: SocketManager?
        /// The options as set (``SocketEngineOptions``); an attempt uses its own snapshot.
        var options: SocketEngineOptions
        var proxy: SocketProxy?
        var attempt = EngineConnectionAttempt()
        /// The machine's actions (and server errors), performed by one thread at a time in the
        /// order the machine produced them (see `SocketEngine.perform(_:)`).
        var turns = SerialTurns<QueuedAction>()
        /// The turn being performed was taken for a core step (``takeTurnForCoreStep(generation:)``)
        /// and has performed no action of the machine's: its thread only delivers, so a write
        /// queues its frames past it while nothing waits behind it (`SocketEngine.write`).
        var turnOnlyDelivers = false
        /// The closes of ended attempts that still run (see `SocketEngine.release(_:)`),
        /// cancelled when the engine is deinitialized.
        var endings = EngineEndingTasks()
        /// Writers waiting for room in the outbound buffers (`SocketEngine+Room.swift`).
        var roomWaiters = WaitList<Bool>()

        /// Offers the actions of one input in the critical section that fed the machine, so
        /// the order in which actions are performed is the machine's.
        ///
        /// - Returns: the actions, when the caller must now perform them and then what queues
        ///   behind them (``SocketEngine/perform(_:)``: no other thread is performing, so
        ///   nothing waits); `nil` when the thread already performing will get to them
        ///   (they are queued) or there are none.
        mutating func queue(_ actions: [EngineClientAction], generation: Int) -> QueuedAction? {
            guard !actions.isEmpty else { return nil }
            return self.turns.offer(QueuedAction(work: .machine(actions), generation: generation, client: self.client))
        }

        /// Feeds one input to the machine of attempt `generation`; `nil` when that attempt is
        /// gone.
        mutating func feed(
            _ generation: Int, _ input: (inout EngineClientStateMachine) -> [EngineClientAction]
        ) -> [EngineClientAction]? {
            guard self.attempt.generation == generation else { return nil }
            return input(&self.attempt.machine)
        }

        /// Takes the turn for a message whose core step runs in this section
        /// (``SocketEngine/drive(_:_:)``): only when nothing is being performed (so nothing
        /// queued before it is overtaken) and the client is ``coreClient``.
        ///
        /// - Returns: the manager to take the step, holding the turn until
        ///   ``SerialTurns/nextBatch()`` ends it; `nil` (nothing taken) otherwise.
        mutating func takeTurnForCoreStep(generation: Int) -> SocketManager? {
            guard !self.turns.isPerforming, let manager = self.coreClient else { return nil }
            _ = self.turns.offer(QueuedAction(work: .machine([]), generation: generation))
            self.turnOnlyDelivers = true
            return manager
        }

        /// The performer's next batch (``SerialTurns/nextBatch()``); from here on it performs
        /// the machine's actions, or its turn ended.
        mutating func nextBatch() -> [QueuedAction]? {
            self.turnOnlyDelivers = false
            return self.turns.nextBatch()
        }

        /// Whether a write's frames may go into the WebSocket send queue in the write's own
        /// section: no action of the machine's is being performed or waits to be, so they
        /// overtake nothing.
        var writesPastTurns: Bool {
            !self.turns.isPerforming || (self.turnOnlyDelivers && self.turns.queuedCount == 0)
        }

        // Derived from the attempt's protocol machine, not stored beside it.

        /// Upstream's `connected`: the session is open (handshake done, not closing).
        var connected: Bool { self.attempt.machine.isOpen }

        /// Upstream's `closed` / `invalidated`: the client was told this attempt closed
        /// (``EngineConnectionAttempt/closeReport``, the one fact for "engine closed").
        var closed: Bool { self.attempt.closeReport == .reported }

        /// Upstream's `polling`: the session runs over HTTP long-polling. Before the machine
        /// starts, what the attempt will use (upstream's initial `true` before any connect).
        var polling: Bool {
            let machine = self.attempt.machine
            guard machine.hasStarted else { return !machine.configuration.forceWebSockets }
            return machine.currentTransport == .polling
        }

        /// Upstream's `sid`: the session id from the handshake until the session ends, `""`
        /// otherwise.
        var sid: String {
            self.attempt.machine.closeReason == nil ? self.attempt.machine.sid ?? "" : ""
        }

        /// What requests use: the current attempt's snapshot, or (before the first
        /// `connect()`) the options as set now.
        var requestOptions: SocketEngineOptions.Snapshot {
            self.attempt.options ?? self.options.snapshot(proxy: self.proxy)
        }
    }

    /// The actions of one input of the machine of attempt `generation` (or a server error
    /// read by its transport), to be performed in turn (``State/turns``).
    struct QueuedAction {
        enum Work {
            /// The actions of one input of the attempt's machine, in order.
            case machine([EngineClientAction])
            /// A server error object (`EngineServerError`) read from the transport: handed to
            /// the open `parseEngineMessage(_:)` in its place, so it cannot overtake a message
            /// read before it whose delivery is still queued (a CONNECT reply, say).
            case serverError(String)
            /// ``SocketEngine/connect()``: the attempt is reset and started behind the work
            /// queued before it, so a close still being performed by another thread (its
            /// `POST` not started yet) is handed over, not cut, by the new attempt.
            case connect
            /// ``SocketEngine/disconnect(reason:)``'s report to the client, behind the close's
            /// own actions and the deliveries queued before it: a message read before the close
            /// is never delivered after its report.
            case closeReported(reason: String)
        }

        var work: Work
        var generation: Int
        /// The client, read in the section that queued the work (a machine's actions deliver
        /// to it without reading it again).
        var client: SocketEngineClient?
    }

    /// The session's core: its client's when the client is a `SocketManager`, else its own.
    let core: SocketConnectionCore

    /// The engine's half of ``core``'s state.
    let state: EngineStateLock

    /// Whether this engine is an instance of a subclass, whose override of upstream's open
    /// `parseEngineMessage(_:)` must see every message: then every message goes through it.
    /// Swift cannot tell an override from the inherited method, so this is decided at `init`
    /// from the class; it changes only where a message is handed on, never the engine's state.
    let deliversThroughOpenMethods: Bool

    // MARK: Properties

    private static let logType = "SocketEngine"

    /// Declared by `SocketEngineSpec` (upstream runs the engine's work on it). Nothing runs on
    /// it here: the engine's work happens on the thread that feeds its protocol machine (a
    /// caller's, or the event loop's for transport events), one thread at a time; it exists
    /// for source compatibility only.
    public let engineQueue = DispatchQueue(label: "com.socketio.engineHandleQueue")

    /// The client for this engine.
    public var client: SocketEngineClient? {
        get { self.state.withLock { $0.client } }
        set { self.state.withLock { $0.client = newValue } }
    }

    /// The connect parameters sent during a connect.
    public var connectParams: [String: Any]? {
        get { self.state.withLock { $0.options.connectParams } }
        set {
            self.state.withLock { state in
                state.options.setConnectParams(newValue, url: self.url)
                state.attempt.polling.urlPrefix = nil
            }
        }
    }

    /// `true` if this engine is closed.
    public var closed: Bool { self.state.withLock { $0.closed } }

    /// If `true` the engine will attempt to use WebSocket compression.
    public var compress: Bool { self.state.withLock { $0.options.compress } }

    /// `true` if this engine is connected. Connected means that the initial poll connect has succeeded.
    public var connected: Bool { self.state.withLock { $0.connected } }

    /// An array of HTTPCookies that are sent during the connection.
    public var cookies: [HTTPCookie]? { self.state.withLock { $0.options.cookies } }

    /// A dictionary of extra http headers that will be set during connection.
    public var extraHeaders: [String: String]? {
        get { self.state.withLock { $0.options.extraHeaders } }
        set { self.state.withLock { $0.options.extraHeaders = newValue } }
    }

    /// When `true`, the engine is in the process of switching to WebSockets.
    public var fastUpgrade: Bool { self.state.withLock { $0.attempt.machine.isUpgrading } }

    /// When `true`, the engine will only use HTTP long-polling as a transport.
    public var forcePolling: Bool { self.state.withLock { $0.options.forcePolling } }

    /// When `true`, the engine will only use WebSockets as a transport.
    public var forceWebsockets: Bool { self.state.withLock { $0.options.forceWebsockets } }

    /// If `true`, the engine is currently in HTTP long-polling mode.
    public var polling: Bool { self.state.withLock { $0.polling } }

    /// If `true`, the engine is currently seeing whether it can upgrade to WebSockets.
    public var probing: Bool { self.state.withLock { $0.attempt.machine.isUpgrading } }

    /// The session id for this engine.
    public var sid: String { self.state.withLock { $0.sid } }

    /// The path to engine.io.
    public var socketPath: String { self.state.withLock { $0.options.socketPath } }

    /// The url for polling.
    public var urlPolling: URL { self.state.withLock { $0.options.urlPolling } }

    /// The url for WebSockets.
    public var urlWebSocket: URL { self.state.withLock { $0.options.urlWebSocket } }

    /// The version of engine.io being used. Default is three.
    public var version: SocketIOVersion { self.state.withLock { $0.options.version } }

    /// If `true`, then the engine is currently in WebSockets mode.
    @available(*, deprecated, message: "No longer needed, if we're not polling, then we must be doing websockets")
    public var websocket: Bool { self.state.withLock { !$0.polling } }

    /// `true` once the engine was closed (upstream: the URLSession was invalidated).
    public var invalidated: Bool { self.state.withLock { $0.closed } }

    /// `true` while the WebSocket transport is open and in use.
    public var wsConnected: Bool {
        self.state.withLock { $0.connected && !$0.polling && $0.attempt.webSocket.connection != nil }
    }

    /// Whether `.enableSOCKSProxy(true)` was set: without an explicit ``proxy``, connections
    /// then go through the environment's SOCKS proxy (`ALL_PROXY` / `SOCKS_PROXY`, see
    /// ``SocketProxy``).
    public var enableSOCKSProxy: Bool { self.state.withLock { $0.options.enableSOCKSProxy } }

    /// The url of the server.
    public let url: URL

    /// Cookies the server set on this engine's polling responses, for its whole life: sent
    /// back on the WebSocket (whose client has no cookie store), and on polling requests when
    /// the HTTP client keeps no cookies itself, so sticky-session load balancers keep the
    /// session on one node. RealtimeHTTP's store: its one `Set-Cookie` parser and RFC 6265
    /// matching; its own lock (it is shared with no other state of the engine).
    package final let stickyCookies = EngineCookieStore()

    /// The HTTP and WebSocket clients this engine drives; `nil` when the platform has none.
    ///
    /// Written only by the initializers, before the engine is shared.
    package final private(set) var transports: EngineTransports?

    /// Where the heartbeat timer comes from when not the core's (an engine of the app's: its
    /// connections' loop; tests: their own source).
    ///
    /// Written only by the initializers, before the engine is shared.
    private var timerOverride: (any SocketTimerSource)?

    /// Where the heartbeat timer comes from: the manager's source for the engine a
    /// `SocketManager` makes.
    var timers: any SocketTimerSource { self.timerOverride ?? self.core.timers }

    // MARK: Initializers

    /// Creates a new engine.
    ///
    /// The designated initializer, as upstream's: a subclass that declares no initializer
    /// inherits it and `init(client:url:options:)`.
    ///
    /// - parameter client: The client for this engine.
    /// - parameter url: The url for this engine.
    /// - parameter config: An array of configuration options for this engine.
    public init(client: SocketEngineClient, url: URL, config: SocketIOClientConfiguration) {
        var initial = State(options: SocketEngineOptions(url: url))
        initial.client = client
        // The engine of a `SocketManager` keeps its half in the manager's core (one lock for
        // the manager, its engines and its sockets) and lives where the manager does: its
        // stack, its loop, its timers. Any other client's engine gets a core of its own.
        let manager = client as? SocketManager
        if let manager, !manager.deliversThroughOpenMethods { initial.coreClient = manager }
        self.core = manager?.core ?? SocketConnectionCore(manager: nil, timers: nil)
        self.state = self.core.register(initial)
        self.url = url
        self.deliversThroughOpenMethods = Self.self != SocketEngine.self

        super.init()

        setConfigs(config)
        let options = self.state.withLock { $0.options }
        if let manager {
            self.transports = manager.transport.makeTransports(options: options, eventLoop: manager.eventLoop)
        } else {
            // The next loop of `.eventLoopGroup`'s group, or of the process default's; the
            // heartbeat on the same loop.
            self.transports = SocketEngine.Transport.automatic.makeTransports(options: options)
            self.timerOverride = self.transports?.eventLoop.map { EventLoopTimerSource(eventLoop: $0) }
        }
    }

    /// Creates an engine over `stack` instead of the one `init(client:url:config:)` chose,
    /// with the heartbeat timer from `timers` when given.
    ///
    /// The stack's clients are made from the options as `setConfigs(_:)` parsed them (the
    /// URLSession stack's session delegate), not from `config` again. A convenience
    /// initializer, so `init(client:url:config:)` stays the one designated initializer that
    /// upstream's subclasses override.
    convenience init(
        client: SocketEngineClient, url: URL, config: SocketIOClientConfiguration, stack: Transport,
        timers: (any SocketTimerSource)? = nil
    ) {
        self.init(client: client, url: url, config: config)
        if case .automatic = stack.kind {
        } else {
            self.transports = stack.makeTransports(options: self.state.withLock { $0.options })
        }
        if let timers { self.timerOverride = timers }
    }

    /// Creates an engine over the given transports (tests and benchmarks inject their own;
    /// `nil`: no transport, every connect fails).
    convenience init(
        client: SocketEngineClient, url: URL, config: SocketIOClientConfiguration, transports: EngineTransports?,
        timers: (any SocketTimerSource)? = nil
    ) {
        self.init(client: client, url: url, config: config, stack: transports.map { .custom($0) } ?? .none, timers: timers)
    }

    /// Creates a new engine over the given stack (see ``Transport``).
    ///
    /// - parameter client: The client for this engine.
    /// - parameter url: The url for this engine.
    /// - parameter config: An array of configuration options for this engine.
    /// - parameter transport: The HTTP and WebSocket stack: ``Transport/automatic`` (what
    ///   `init(client:url:config:)` uses) picks URLSession on Apple platforms and the native
    ///   stack on Linux.
    public convenience init(
        client: SocketEngineClient, url: URL, config: SocketIOClientConfiguration,
        transport: Transport
    ) {
        self.init(client: client, url: url, config: config, stack: transport)
    }

    deinit {
        // The close handshakes still running end now: their sockets close without waiting
        // for the peer's answer (nobody is left to observe it).
        for task in self.state.withLock({ $0.endings.takeAll() }) {
            task.cancel()
        }
        self.core.unregister(self.state)
    }

    /// How many WebSocket close handshakes of ended attempts still run (for tests).
    package var closingWebSocketCount: Int {
        self.state.withLock { $0.endings.count(.webSocketClose) }
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

    /// Called when an `ConfigSettable` should set/update its configs from a given configuration.
    ///
    /// - parameter config: The `SocketIOClientConfiguration` that should be used to set/update configs.
    open func setConfigs(_ config: SocketIOClientConfiguration) {
        let url = self.url
        self.state.withLock { state in
            state.options.apply(config, url: url)
            state.attempt.polling.urlPrefix = nil
        }
    }

    // MARK: SocketEngineSpec

    /// Starts the connection to the server: the polling handshake (then a WebSocket upgrade
    /// unless `.forcePolling(true)`), or a WebSocket straight away with `.forceWebsockets(true)`.
    open func connect() {
        // In turn: another thread may still be performing the actions of a close (its last
        // `POST` not started yet); a reset now would abandon that close before it existed.
        let turn = self.state.withLock { $0.turns.offer(QueuedAction(work: .connect, generation: $0.attempt.generation)) }
        if let turn { self.perform(turn) }
    }

    /// ``connect()``'s work, performed in turn.
    func startAttempt() {
        let (generation, teardown) = self.state.withLock { state -> (Int, EngineConnectionAttempt.Teardown) in
            // The attempt's options are fixed now: a setting changed later applies at the
            // next connect. A client close still under way goes on (the teardown's
            // `pollingClose`): the server must see it before this attempt's handshake.
            let teardown = state.attempt.reset(options: state.options.snapshot(proxy: state.proxy))
            return (state.attempt.generation, teardown)
        }
        self.release(teardown)

        DefaultSocketLogger.Logger.log("Starting engine. Server: \(self.url.host ?? "")", type: SocketEngine.logTypeIO)

        guard self.transports != nil else {
            self.failBeforeStart(generation: generation, reason: "No transport available for this platform")
            return
        }

        self.drive(generation) { $0.start() }
    }

    /// Reports a connect that could not start as an error and a close, once.
    private func failBeforeStart(generation: Int, reason: String) {
        let client = self.state.withLock { state -> SocketEngineClient? in
            guard state.attempt.generation == generation, state.attempt.closeReport == .pending else { return nil }
            state.attempt.closeReport = .reported
            return state.client
        }
        DefaultSocketLogger.Logger.error("\(reason)", type: SocketEngine.logTypeIO)
        client?.engineDidError(reason: reason)
        client?.engineDidClose(reason: reason)
    }

    /// Called when an error happens during execution. Causes a disconnection.
    open func didError(reason: String) {
        DefaultSocketLogger.Logger.error("\(reason)", type: SocketEngine.logTypeIO)
        let client = self.client
        client?.engineDidError(reason: reason)
        disconnect(reason: reason)
    }

    /// Disconnects from the server.
    ///
    /// Sends the engine.io close packet when connected (over the WebSocket, or in a last POST),
    /// stops the transports and reports `engineDidClose(reason:)` to the client.
    ///
    /// - parameter reason: The reason for the disconnection. This is communicated up to the client.
    open func disconnect(reason: String) {
        DefaultSocketLogger.Logger.log("Engine is being closed.", type: SocketEngine.logTypeIO)

        let turn = self.state.withLock { state -> QueuedAction? in
            state.attempt.closeReport = .reported
            let generation = state.attempt.generation
            let close = state.queue(state.attempt.machine.close(), generation: generation)
            // Behind the close's actions and the deliveries another thread still performs.
            let report = state.turns.offer(QueuedAction(work: .closeReported(reason: reason), generation: generation))
            return close ?? report
        }

        // The engine counts as closed from now on: writers waiting for room go on (and
        // find it closed) instead of waiting for the close handshake.
        self.wakeRoomWaiters()
        if let turn { self.perform(turn) }
    }

    /// Called to switch from HTTP long-polling to WebSockets.
    ///
    /// The protocol machine performs the upgrade itself (probe, pause, `5`); this only exists
    /// for source compatibility. **You shouldn't call this directly**
    open func doFastUpgrade() {}

    /// Causes any packets that were waiting for POSTing to be sent through the WebSocket.
    ///
    /// The protocol machine does this when the upgrade completes. **You shouldn't call this directly**
    open func flushWaitingForPostToWebSocket() {}

    /// Parses raw binary received from engine.io.
    ///
    /// - parameter data: The data to parse.
    open func parseEngineData(_ data: Data) {
        DefaultSocketLogger.Logger.log("Got binary data: \(data.count) bytes", type: SocketEngine.logTypeIO)
        let client = self.client
        client?.parseEngineBinaryData(data)
    }

    /// Parses a raw engine.io packet, as upstream's does.
    ///
    /// - `4` + text: a message, to the client's `parseEngineMessage(_:)`.
    /// - `b` + base64 (`b4` + base64 with `.version(.two)`): binary, to the client's
    ///   `parseEngineBinaryData(_:)`.
    /// - a JSON object with a string `message` (`{"code":1,"message":"Session ID unknown"}`):
    ///   ``didError(reason:)`` with that message (an `error` client event, then the engine
    ///   closes); a JSON object without one is ignored.
    /// - anything else that is no packet: `engineDidError` "Got unknown error from server
    ///   <message>" (an `error` client event); the session goes on.
    /// - the other packet types (`0`-`3`, `5`, `6`) are the protocol machine's: ignored here.
    ///
    /// Every message the server sends passes through here (`4` + the message), so an override
    /// sees them; a server error object sent over the network is handled here too.
    ///
    /// - parameter message: The message to parse.
    open func parseEngineMessage(_ message: String) {
        self.deliverMessage(message, to: self.client)
    }

    /// The Socket.IO packet in an Engine.IO packet that is `4` and an ASCII byte (a Socket.IO
    /// packet type): the path of every message from the network, found without classifying
    /// the whole text; `nil` for anything else. The packet stays in the message (no copy).
    static func socketIOPacket(in message: String) -> Substring? {
        let utf8 = message.utf8
        guard utf8.first == UInt8(ascii: "4"), (utf8.dropFirst().first ?? 0) < 0x80 else { return nil }
        return Substring(utf8.dropFirst())
    }

    /// What `parseEngineMessage(_:)` does, with the client given.
    final func deliverMessage(_ message: String, to client: SocketEngineClient?) {
        if let packet = Self.socketIOPacket(in: message) {
            // Upstream's open entry point takes a `String`: the one copy of this path.
            client?.parseEngineMessage(String(packet))
            return
        }
        switch EngineTextMessage(message, version: self.version == .two ? .v3 : .v4) {
        case .packet(.message(let text)):
            client?.parseEngineMessage(text)
        case .packet(.binaryMessage(let bytes)):
            client?.parseEngineBinaryData(Data(bytes))
        case .serverError(.message(let reason)):
            self.didError(reason: reason)
        case .unknown:
            DefaultSocketLogger.Logger.error("Got unknown error from server", type: SocketEngine.logTypeIO)
            client?.engineDidError(reason: "Got unknown error from server \(message)")
        case .packet, .serverError(.withoutMessage), .invalidBinary:
            // The other packet types are the protocol machine's; an object without a
            // `message` and undecodable base64 are ignored, as upstream.
            break
        }
    }

    /// Writes a message to engine.io, independent of transport.
    ///
    /// Writes keep their order across transports (polling POSTs, the upgrade, WebSocket frames).
    /// The content is never logged. The completion runs once the transport sent the write
    /// (immediately when the engine is not connected).
    ///
    /// A write the engine refuses is not sent, and its completion runs at once:
    /// - a packet longer than the handshake's `maxPayload` (as the current transport encodes
    ///   it), since the server would drop the session over it: the client gets
    ///   `engineDidError` ("… exceeds the server's maxPayload …", an `error` client event);
    /// - a write that does not fit the engine's outbound buffers (16 MiB or 262,144 packets
    ///   waiting for the `POST` in flight, the handshake or the upgrade; the same behind a
    ///   WebSocket write): `engineDidError` with the buffer's description.
    ///
    /// `send(_:withType:withData:completion:)` (package) is the same write with these outcomes as a
    /// typed error.
    ///
    /// - parameter msg: The message to send.
    /// - parameter type: The type of this message.
    /// - parameter data: Any data that this message has.
    /// - parameter completion: Callback called on transport write completion.
    open func write(_ msg: String, withType type: SocketEnginePacketType, withData data: [Data], completion: (() -> Void)? = nil) {
        do {
            try self.send(msg, withType: type, withData: data, completion: completion)
        } catch {
            self.refused(error, completion: completion)
        }
    }

    /// What ``write(_:withType:withData:completion:)`` does with a write the engine refused:
    /// the completion runs, and a packet too large or a full buffer is reported to the client.
    final func refused(_ error: SocketEngineWriteError, completion: (() -> Void)?) {
        switch error {
        case .notConnected:
            DefaultSocketLogger.Logger.log("Tried writing while not connected", type: SocketEngine.logTypeIO)
            completion?()
        case .packetTooLarge, .bufferFull:
            // The server would drop the whole session over a packet too large (python-engineio
            // closes the WebSocket or answers the POST with an error), and a full buffer means
            // the transport does not keep up: refuse this write instead.
            let reason = error.description
            DefaultSocketLogger.Logger.error("\(reason)", type: SocketEngine.logTypeIO)
            completion?()
            let client = self.client
            client?.engineDidError(reason: reason)
        }
    }

    /// Writes a message as ``write(_:withType:withData:completion:)`` does, and says why when
    /// the engine refuses it (then nothing is sent and `completion` is dropped, not run).
    ///
    /// The entry for the SocketIO layer when an emit must learn that it was not sent:
    ///
    /// ```swift
    /// do {
    ///     try engine.send(text, withType: .message, withData: attachments) { /* sent */ }
    /// } catch .bufferFull(let overflow) {
    ///     // the emit was refused: overflow.buffer, overflow.maximumBytes ...
    /// } catch {
    ///     // .notConnected, .packetTooLarge(length:limit:)
    /// }
    /// ```
    ///
    /// - Important: Does not go through an override of `write(_:withType:withData:completion:)`.
    /// - Throws: ``SocketEngineWriteError``.
    package func send(
        _ msg: String, withType type: SocketEnginePacketType, withData data: [Data], completion: (() -> Void)? = nil
    ) throws(SocketEngineWriteError) {
        var packets = [EnginePacket(type: SocketEngine.enginePacketType(type), text: msg)]
        packets += data.map { EnginePacket.binaryMessage(Array($0)) }
        try self.send(packets: packets, completion: completion)
    }

    /// Writes Engine.IO packets as one write (one completion), as
    /// `send(_:withType:withData:completion:)` (package) does: the msgpack parser's binary-only messages.
    ///
    /// - Throws: ``SocketEngineWriteError``.
    func send(packets: [EnginePacket], completion: (() -> Void)? = nil) throws(SocketEngineWriteError) {
        try self.perform(self.state.withLock { self.write(packets, completion: completion, in: &$0) })
    }

    /// Where a write went, decided in a critical section (``write(_:completion:in:)``) and
    /// performed after it (``perform(_:)-(WriteOutcome)``).
    enum WriteOutcome {
        case queued(QueuedAction?)
        /// Queued in the WebSocket driver's send queue in the section; the turn to write, if
        /// the queue made this thread its writer.
        case write(EngineWebSocketDriver.WriterTurn?, generation: Int)
        case refused(SocketEngineWriteError)
    }

    /// A write's section: the checks (open, `maxPayload`, the WebSocket send queue's room),
    /// the machine's `write`, and the completion's record, in the engine's half of the core's
    /// state. A socket's emit runs it in its own section (`SocketIOClient.emit`), so an emit
    /// takes one section, not one in the socket and one here.
    func write(_ packets: [EnginePacket], completion: (() -> Void)?, in state: inout State) -> WriteOutcome {
        guard state.connected, !state.closed else { return .refused(.notConnected) }
        if let (length, limit) = state.attempt.machine.oversizedPacket(in: packets) {
            return .refused(.packetTooLarge(length: length, limit: limit))
        }
        if state.attempt.machine.currentTransport == .webSocket {
            // Over an open WebSocket the machine buffers nothing: the bound is the send
            // queue's (frames waiting behind the write in progress).
            var bytes = 0
            for packet in packets { bytes += EngineWebSocketSendQueue.frameLength(of: packet) }
            do throws(EngineBufferOverflow) {
                try state.attempt.webSocket.sendQueue.checkRoom(forBytes: bytes, frames: packets.count)
            } catch {
                return .refused(.bufferFull(error))
            }
        }
        // The machine says which send carries the write (`carriesWrites`); its
        // completion runs once that send is done.
        let writeID = completion == nil ? nil : state.attempt.nextWriteID
        let actions: [EngineClientAction]
        do throws(EngineBufferOverflow) {
            actions = try state.attempt.machine.write(packets, writeID: writeID)
        } catch {
            return .refused(.bufferFull(error))
        }
        if let completion, let writeID {
            state.attempt.nextWriteID += 1
            state.attempt.addCompletion(completion, writeID: writeID)
        }
        let generation = state.attempt.generation
        // Nothing of the machine's is being performed or waits (a turn that only delivers a
        // message does not count), and this write's only work is frames for the open
        // WebSocket: they go into the driver's send queue here, in the order the machine
        // produced them, without a turn of their own (the turn's check for more work would
        // take the lock once more).
        if state.writesPastTurns, let entry = Self.webSocketFramesOnly(actions) {
            return .write(EngineWebSocketDriver.enqueue(entry, generation: generation, in: &state.attempt), generation: generation)
        }
        return .queued(state.queue(actions, generation: generation))
    }

    /// Performs what a write's section decided, with no lock held.
    ///
    /// - Throws: ``SocketEngineWriteError`` when the section refused the write.
    func perform(_ outcome: WriteOutcome) throws(SocketEngineWriteError) {
        switch outcome {
        case .queued(let turn):
            if let turn { self.perform(turn) }
        case .write(let turn, let generation):
            if let turn { self.webSocketDriver.write(turn, generation: generation) }
        case .refused(let error):
            throw error
        }
    }

    static func enginePacketType(_ type: SocketEnginePacketType) -> EnginePacketType {
        switch type {
        case .open: return .open
        case .close: return .close
        case .ping: return .ping
        case .pong: return .pong
        case .message: return .message
        case .upgrade: return .upgrade
        case .noop: return .noop
        }
    }
}

extension SocketEngine {
    /// The send queue's entry when a write's actions are only WebSocket frames (and the write
    /// they carry); `nil` for anything else, which takes a turn.
    static func webSocketFramesOnly(_ actions: [EngineClientAction]) -> EngineWebSocketSendQueue.Entry? {
        switch actions.count {
        case 1:
            guard case .sendWebSocketFrames(let frames) = actions[0] else { return nil }
            return .frames(frames, writeID: nil)
        case 2:
            guard case .sendWebSocketFrames(let frames) = actions[0], case .carriesWrites(let through) = actions[1] else {
                return nil
            }
            return .frames(frames, writeID: through)
        default:
            return nil
        }
    }
}
