import Dispatch
import EngineIOClient
import EngineIOProtocol
public import Foundation
import RealtimeSync
import RealtimeTime
import SocketIOProtocol

/// Represents a socket.io-client.
///
/// Clients are created through a `SocketManager`, which owns the `SocketEngineSpec` that controls the connection to the server.
///
/// ```swift
/// // Create a socket for the /swift namespace
/// let socket = manager.socket(forNamespace: "/swift")
///
/// // Add some handlers and connect
/// socket.on(clientEvent: .connect) { data, ack in print("connected to", data[0]) }
/// socket.connect()
/// ```
///
/// - Important: Unlike upstream, every member is safe to call from any thread: all mutable
///   state sits behind one lock. Handlers are never called with the lock held; events that
///   arrive from the network, ack callbacks, timeouts and write completions are delivered on
///   the manager's `handleQueue` (the main queue unless `.handleQueue` is set), in order.
///   The public `handle*` / `did*` entry points run handlers synchronously on the caller's
///   thread, as upstream does.
open class SocketIOClient: NSObject, SocketIOClientSpec, @unchecked Sendable {
    // `@unchecked Sendable`: every mutable field lives in `state`, the socket's half of its
    // `SocketConnectionCore` (its manager's core when the manager is a `SocketManager`: one
    // lock per session); `nsp` is a `let`, and `manager` is written only by `init`. User
    // callbacks are copied out of the lock and called after it is released.

    struct State {
        var anyHandler: ((SocketAnyEvent) -> Void)?
        var handlers: [SocketEventHandler] = []
        /// The socket's half of the session (`SocketIOProtocol.NamespaceSessionMachine`): the
        /// namespace connection (CONNECT with auth, acknowledgement or CONNECT_ERROR,
        /// DISCONNECT, events buffered before the acknowledgement, rejoin after a reconnect),
        /// the status the socket reports (`session.connection.status`, the one place it is
        /// kept), the acks our emits wait for and the completions of the emits kept while
        /// connecting.
        var session: Session
        /// The one scheduled wake-up that expires acks, at the deadline the session's ack
        /// table asked for (lazy: it may outlive the ack it was armed for); changed only in
        /// the critical section of the input that asked (``SocketIOClient/apply(_:to:timers:)``).
        var ackTimer: SocketTimer?
        /// `statusChange` events, delivered by one thread at a time in the order the status
        /// changed (see `SocketIOClient.changeStatus(_:)`).
        var statusTurns = SerialTurns<SocketIOStatus>()
        /// The provider of `connect(withAuthProvider:)`, asked before each CONNECT.
        var authProvider: AuthProvider?
        /// ``SocketIOClient/onAnyOutgoing(_:)``'s handlers.
        var outgoingListeners: [OutgoingListener] = []
        /// Subscribers to every incoming event (SocketIOConcurrency's `anyEvents()`).
        var incomingSubscribers: [IncomingSubscriber] = []
        /// The manager's parser as of this socket's last join (read there, with the version
        /// and the send buffer, so an emit takes no manager lock to learn it).
        var parser = SocketParser.json
        /// `.retries`: every emit is delivered through this queue (`nil` without the option).
        var retryQueue: EmitRetryQueue<RetriedEmit>?
        /// `.ackTimeout`: seconds each queued try waits for its ack (0: no limit).
        var ackTimeout: Double = 0
        /// The task running an `async` provider's current request (owned: cancelled by the
        /// next request and by leaving the namespace).
        var authTask: Task<Void, Never>?
        /// The network event or ack being handed to the open `handleEvent` / `handleAck`
        /// (see ``NetworkArguments``); taken by the base implementation.
        var networkArguments: NetworkArguments?
        /// The machine's actions for the network packet being handed to the open
        /// `handlePacket(_:)` of a subclass (``SocketIOClient/deliverThroughOpenMethods(_:actions:)``);
        /// taken by the base implementation, which performs them instead of running the
        /// machine again.
        var networkDelivery: [SessionAction]?
    }

    /// The decoded arguments of the network event or ack the socket is handing to the open
    /// `handleEvent(_:data:isInternalMessage:withAck:)` or `handleAck(_:data:)`, with the
    /// `[Any]` made from them for that call.
    ///
    /// Every network event and ack goes through those overridable methods, so a subclass's
    /// override sees them all, without a check of the instance's type. What keeps that cheap
    /// for everyone else: when the `data` that reaches the base implementation is that same
    /// array (its storage, not an equal copy: an override that changed it made another),
    /// SocketIOConcurrency's subscribers and waiters get the decoded values instead of a
    /// conversion of the `[Any]` back. The `[Any]` is retained here, so its storage cannot be
    /// reused by another array while the comparison can still be made.
    struct NetworkArguments {
        var items: [Any]
        var arguments: [JSONValue]

        /// `arguments`, when `data` is ``items`` itself.
        func decoded(for data: [Any]) -> [JSONValue]? {
            guard data.count == self.items.count else { return nil }
            let same = data.withUnsafeBufferPointer { given in
                self.items.withUnsafeBufferPointer { made in given.baseAddress == made.baseAddress }
            }
            return same ? self.arguments : nil
        }
    }

    /// The session this socket is part of: its manager's core (a core of its own when the
    /// manager is not a `SocketManager`).
    let core: SocketConnectionCore

    /// The socket's half of ``core``'s state.
    let state: SocketStateLock

    // MARK: Properties

    /// The namespace that this socket is currently connected to.
    ///
    /// **Must** start with a `/`.
    public let nsp: String

    /// A handler that will be called on any event.
    public var anyHandler: ((SocketAnyEvent) -> Void)? {
        return self.state.withLock { $0.anyHandler }
    }

    /// The array of handlers for this socket.
    public var handlers: [SocketEventHandler] {
        return self.state.withLock { $0.handlers }
    }

    /// The manager for this socket.
    ///
    /// Held weakly (the manager owns its sockets), set at `init` and never written again, so it
    /// is read without the socket's lock (upstream's declaration; a `weak let` would need
    /// Swift 6.3).
    public private(set) weak var manager: SocketManagerSpec?

    /// A view into this socket where emits do not check for binary data.
    ///
    /// ```swift
    /// socket.rawEmitView.emit("myEvent", myObject)
    /// ```
    ///
    /// **NOTE**: It is not safe to hold on to this view beyond the life of the socket.
    public var rawEmitView: SocketRawView {
        return SocketRawView(socket: self)
    }

    /// The status of this client.
    ///
    /// Read from the socket's namespace machine, which every status change goes through.
    public var status: SocketIOStatus {
        return SocketIOStatus(self.state.withLock { $0.session.connection.status })
    }

    /// The id of this socket.io connect. This is different from the sid of the engine.io connection.
    public var sid: String? {
        return self.state.withLock { $0.session.connection.reportedSID }
    }

    /// Whether the last connection restored the previous session (socket.io-client's name).
    ///
    /// A server with connection state recovery on (socket.io 4.6+, `connectionStateRecovery`)
    /// keeps a disconnected socket's session for a while. This socket remembers the session's
    /// private id from each CONNECT acknowledgement and the offset of the last event it
    /// received, and sends them with its auth on the next CONNECT; when the server restores the
    /// session it first replays the events the socket missed, which are delivered in order
    /// before `connect`, and this property is `true` from then on (with the same ``sid``).
    /// `false` when the server started a new session (the window passed, an unknown offset,
    /// the last disconnect was a namespace leave, or the server does not recover sessions).
    ///
    /// The id and offset are kept across ``disconnect()``, as socket.io-client keeps them, so a
    /// later `connect()` may be recovered too if the server allows it.
    public var recovered: Bool {
        return self.state.withLock { $0.session.connection.recovered }
    }

    /// The logger's type for this socket, made once (it was interpolated on every packet,
    /// logging on or off).
    let logType: String

    /// Whether this socket is an instance of a subclass, whose overrides of upstream's open
    /// methods (`handlePacket`, `handleEvent`, `handleAck`) must see every packet, event and
    /// ack: then every delivery goes through them on `handleQueue`, as upstream makes it.
    /// Swift cannot tell an override from the inherited method, so this is decided once, at
    /// `init`, from the class. It changes where a packet is delivered, never its state: every
    /// socket's packets take the same path through the session's core and its machines.
    package let deliversThroughOpenMethods: Bool

    // MARK: Initializers

    /// Type safe way to create a new SocketIOClient. `opts` can be omitted.
    ///
    /// - parameter manager: The manager for this socket.
    /// - parameter nsp: The namespace of the socket.
    public init(manager: SocketManagerSpec, nsp: String) {
        // Socket.IO 2.x servers speak socket.io-protocol v4 (implicit join of `/`).
        self.manager = manager
        let initial = State(session: Session(namespace: nsp, revision: manager.version.protocolRevision))
        // A socket of a `SocketManager` keeps its state in the manager's core (one lock for the
        // manager, its engines and its sockets); a socket of another manager has a core of its own.
        self.core = (manager as? SocketManager)?.core ?? SocketConnectionCore(manager: nil, timers: nil)
        self.state = self.core.register(initial)
        self.nsp = nsp
        self.logType = "SocketIOClient{\(nsp)}"
        self.deliversThroughOpenMethods = Self.self != SocketIOClient.self

        super.init()
    }

    deinit {
        // The ack wake-up is lazy (it may outlive the acks it was armed for): a released
        // socket cancels it, so the loop keeps no timer for it.
        let ackTimer = self.state.withLock { $0.ackTimer.take() }
        ackTimer?.cancel()
        self.core.unregister(self.state)
    }

    // MARK: Status

    /// Sets the status and reports `statusChange` with `[status, status.rawValue]`, as upstream's `didSet`.
    func setStatus(_ status: SocketIOStatus) {
        self.changeStatus { state in
            state.session.connection.setStatus(status.connectionStatus)
            return true
        }
    }

    /// Feeds one of the namespace machine's status inputs in one critical section and, when it
    /// set the status, reports `statusChange` with the machine's new status.
    ///
    /// - Parameter input: runs the machine's input (and any other change that belongs with it,
    ///   such as upstream's `sid`) under the lock; returns whether the status was set.
    ///
    /// The event is queued in the same critical section, and the queue is delivered by one
    /// thread at a time (whichever changed the status while no other was delivering), so
    /// handlers see `statusChange` in the order the machine's status changed, whichever
    /// threads changed it.
    ///
    /// - Returns: `true` when the status was set.
    @discardableResult
    func changeStatus(_ input: (inout State) -> Bool) -> Bool {
        let (changed, turn) = self.state.withLock { state -> (Bool, SocketIOStatus?) in
            guard input(&state) else { return (false, nil) }
            return (true, state.statusTurns.offer(SocketIOStatus(state.session.connection.status)))
        }
        if let turn {
            self.handleClientEvent(.statusChange, data: [turn, turn.rawValue])
            while let batch = self.state.withLock({ $0.statusTurns.nextBatch() }) {
                for next in batch { self.handleClientEvent(.statusChange, data: [next, next.rawValue]) }
            }
        }
        return changed
    }

    // MARK: Methods

    /// Connect to the server. The same as calling `connect(timeoutAfter:withHandler:)` with a timeout of 0.
    ///
    /// Only call after adding your event listeners, unless you know what you're doing.
    ///
    /// - parameter payload: An optional payload sent on connect (the `auth` object of Socket.IO v4).
    open func connect(withPayload payload: [String: Any]? = nil) {
        connect(withPayload: payload, timeoutAfter: 0, withHandler: nil)
    }

    /// Connect to the server. If we aren't connected after `timeoutAfter` seconds, then `withHandler` is called.
    ///
    /// Only call after adding your event listeners, unless you know what you're doing.
    ///
    /// - parameter payload: An optional payload sent on connect
    /// - parameter timeoutAfter: The number of seconds after which if we are not connected we assume the connection
    ///                           has failed. Pass 0 to never timeout.
    /// - parameter handler: The handler to call when the client fails to connect.
    open func connect(withPayload payload: [String: Any]? = nil, timeoutAfter: Double, withHandler handler: (() -> Void)?) {
        guard let manager = self.manager, self.changeStatus({ $0.session.connection.startConnecting() }) else {
            DefaultSocketLogger.Logger.log("Tried connecting on an already connected socket", type: logType)
            return
        }

        joinNamespace(withPayload: payload)
        self.armConnectTimeout(timeoutAfter, handler: handler, manager: manager)
    }

    /// `connect`'s timeout: after `timeoutAfter` seconds (0: none), a socket still not
    /// connected leaves its namespace and `handler` is called.
    func armConnectTimeout(_ timeoutAfter: Double, handler: (() -> Void)?, manager: SocketManagerSpec) {
        guard timeoutAfter > 0 else { return }

        // The deadline is a timer of the manager's one source (its sockets' ack deadlines,
        // reconnect tries, heartbeats); the timeout runs on `handleQueue`, as upstream's.
        let handlerBox = UncheckedSendable(handler)
        let queue = manager.handleQueue
        _ = self.timers.schedule(after: timeoutAfter) { [weak self] in
            queue.async { [weak self] in
                guard let this = self,
                    this.changeStatus({ $0.session.connection.connectTimedOut() })
                else { return }

                this.leaveNamespace()

                handlerBox.value?()
            }
        }
    }

    package func createOnAck(_ items: [Any], binary: Bool = true) -> OnAckCallback {
        return OnAckCallback(items: items, socket: self, binary: binary)
    }

    /// Called when the client connects to a namespace. If the client was created with a namespace upfront,
    /// then this is only called when the client connects to that namespace.
    ///
    /// - parameter namespace: The namespace that was connected to.
    /// - parameter payload: The CONNECT payload from the server (`{"sid": ...}` in Socket.IO v5).
    open func didConnect(toNamespace namespace: String, payload: [String: Any]?) {
        let sid = payload?["sid"] as? String
        var buffered: [SessionAction] = []
        let connected = self.changeStatus { state in
            guard let deliveries = state.session.reportConnected(sid: sid) else { return false }
            buffered = deliveries
            return true
        }
        guard connected else { return }

        DefaultSocketLogger.Logger.log("Socket connected", type: logType)

        // What arrived before the CONNECT acknowledgement (a recovering server's replay of the
        // missed packets, or what a connect handler emitted), in order, before `connect`, as
        // socket.io-client's `receiveBuffer`; called before the acknowledgement (a simulated
        // connect), what arrived while connecting is not kept waiting for it any more.
        perform(buffered, reason: "", receiving: nil)
        // Emits made while the kept ones went out were kept behind them: send those too.
        while case let more = self.state.withLock({ $0.session.sendBufferFlushed() }), !more.isEmpty {
            perform(more, reason: "", receiving: nil)
        }
        // Then the retry queue's head (again), as socket.io-client's `_drainQueue(true)`.
        self.retryConnected()

        handleClientEvent(.connect, data: payload.map { [namespace, $0] } ?? [namespace])
    }

    /// Called when the client has disconnected from socket.io.
    ///
    /// - parameter reason: The reason for the disconnection.
    open func didDisconnect(reason: String) {
        let disconnected = self.changeStatus { $0.session.connection.reportDisconnected() }
        guard disconnected else { return }

        DefaultSocketLogger.Logger.log("Disconnected: \(reason)", type: logType)

        self.failAckWaiters(reason: reason)
        self.retryLeft(reason: reason)

        handleClientEvent(.disconnect, data: [reason])
    }

    /// Disconnects the socket.
    ///
    /// This will cause the socket to leave the namespace it is associated to, as well as remove itself from the
    /// `manager`.
    open func disconnect() {
        DefaultSocketLogger.Logger.log("Closing socket", type: logType)

        leaveNamespace()
    }

    /// Send an event to the server, with optional data items and optional write completion handler.
    ///
    /// If an error occurs trying to transform `items` into their socket representation, a `SocketClientEvent.error`
    /// will be emitted. The structure of the error data is `[eventName, items, theError]`
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. May be left out.
    /// - parameter completion: Callback called on transport write completion (on `handleQueue`).
    open func emit(_ event: String, _ items: SocketData..., completion: (() -> Void)? = nil) {
        emit(event, with: items, completion: completion)
    }

    /// Send an event to the server, with optional data items and optional write completion handler.
    ///
    /// If an error occurs trying to transform `items` into their socket representation, a `SocketClientEvent.error`
    /// will be emitted. The structure of the error data is `[eventName, items, theError]`
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. May be left out.
    /// - parameter completion: Callback called on transport write completion (on `handleQueue`).
    open func emit(_ event: String, with items: [SocketData], completion: (() -> Void)?) {
        do {
            emit(try Self.eventData(event, items), completion: completion)
        } catch {
            DefaultSocketLogger.Logger.error("Error creating socketRepresentation for emit: \(event)", type: logType)

            handleClientEvent(.error, data: [event, items, error])
        }
    }

    /// Sends a message to the server, requesting an ack.
    ///
    /// **NOTE**: It is up to the server send an ack back, just calling this method does not mean the server will ack.
    ///
    /// ```swift
    /// socket.emitWithAck("myEvent", 1).timingOut(after: 1) {data in
    ///     ...
    /// }
    /// ```
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. May be left out.
    /// - returns: An `OnAckCallback`. You must call the `timingOut(after:)` method before the event will be sent.
    open func emitWithAck(_ event: String, _ items: SocketData...) -> OnAckCallback {
        emitWithAck(event, with: items)
    }

    /// Sends a message to the server, requesting an ack.
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. May be left out.
    /// - returns: An `OnAckCallback`. You must call the `timingOut(after:)` method before the event will be sent.
    open func emitWithAck(_ event: String, with items: [SocketData]) -> OnAckCallback {
        do {
            return createOnAck(try Self.eventData(event, items))
        } catch {
            DefaultSocketLogger.Logger.error("Error creating socketRepresentation for emit: \(event)", type: logType)

            handleClientEvent(.error, data: [event, items, error])

            return OnAckCallback(items: [], socket: self, sendable: false)
        }
    }

    /// An event's packet data: its name, then each item's socket representation, built in one
    /// array (not the name's array, the items' and their concatenation).
    package static func eventData(_ event: String, _ items: [SocketData]) throws -> [Any] {
        var data: [Any] = []
        data.reserveCapacity(items.count + 1)
        data.append(event)
        for item in items {
            data.append(try item.socketRepresentation())
        }
        return data
    }

    /// Sends an emit or an ack now, keeps it while connecting (`.sendBuffer`), or refuses it.
    ///
    /// - Returns: `true` when sent or kept (an ack callback then waits for it).
    @discardableResult
    func emit(
        _ data: [Any],
        ack: Int? = nil,
        binary: Bool = true,
        isAck: Bool = false,
        volatile: Bool = false,
        completion: (() -> Void)? = nil
    ) -> Bool {
        self.emit(data, ack: ack.map { .id($0) }, binary: binary, isAck: isAck, volatile: volatile, completion: completion).sent
    }

    /// The ack of an emit: an id registered already, or one to register (with what waits for
    /// it and its timeout in seconds, 0 for none) in the critical section that decides the emit.
    enum EmitAck {
        case id(Int)
        case register(PendingAck, timeout: Double)
    }

    /// ``emit(_:ack:binary:isAck:volatile:completion:)`` with an ack to register: the
    /// registration, the status check and the emit's fate are one critical section.
    ///
    /// - Returns: whether the emit was sent or kept, and the ack id (registered before the
    ///   EVENT could be written, so an early answer is never missed; left waiting when the emit
    ///   was refused, as upstream leaves it until its timeout).
    func emit(
        _ data: [Any],
        ack: EmitAck?,
        binary: Bool = true,
        isAck: Bool = false,
        volatile: Bool = false,
        completion: (() -> Void)? = nil
    ) -> (sent: Bool, ackID: Int?) {
        // `.retries`: a plain emit goes through the retry queue, with an ack of its own.
        let retried =
            ack == nil && !isAck && !volatile
            ? RetriedEmit(items: data, binary: binary, timeout: nil, outcome: .written(completion)) : nil
        switch self.emit(data, ack: ack, binary: binary, isAck: isAck, volatile: volatile, completion: completion, retried: retried) {
        case .direct(let sent, let ackID): return (sent, ackID)
        case .retried(.queued): return (true, nil)
        case .retried, .refused: return (false, nil)
        }
    }

    /// Where an emit went.
    enum EmitRoute {
        /// Sent or kept (`sent`), or refused, by the socket itself; the ack id as
        /// ``emit(_:ack:binary:isAck:volatile:completion:)`` returns it.
        case direct(sent: Bool, ackID: Int?)
        /// `.retries` is on: the retry queue took it, or refused it.
        case retried(RetryEnqueue)
        /// Refused unreported and unregistered, because the socket is not connected and keeps
        /// no emits (asked for with `refusesUnlessConnected`); `connecting`: it is connecting.
        case refused(connecting: Bool)
    }

    /// ``emit(_:ack:binary:isAck:volatile:completion:)``, or `retried` into the retry queue when
    /// `.retries` is on. Whether it is on is read in the emit's own critical section, so an
    /// emit without retries takes one critical section, not one to learn that and another to
    /// send. With `refusesUnlessConnected` (SocketIOConcurrency's: an emit made while the socket
    /// connects waits for it, one made while it is not connected throws), a socket that is not
    /// connected and keeps no emits refuses it as ``EmitRoute/refused(connecting:)``, in the
    /// same section: nothing is registered or reported.
    func emit(
        _ data: [Any],
        ack: EmitAck?,
        binary: Bool = true,
        isAck: Bool = false,
        volatile: Bool = false,
        completion: (() -> Void)? = nil,
        retried: RetriedEmit?,
        refusesUnlessConnected: Bool = false
    ) -> EmitRoute {
        var ackID: Int?
        if case .id(let id) = ack { ackID = id }
        // The manager's `handleQueue` and engine are read in the emit's own critical section
        // (the manager's half of the state is in this socket's core); another kind of
        // manager's are read from it.
        let foreign = self.core.belongsToManager ? nil : (queue: self.manager?.handleQueue, engine: self.manager?.engine)
        var engine: SocketEngineSpec?
        // Wraps the completion handler so it always runs async on handleQueue.
        var wrappedCompletion: (() -> Void)?
        func wrap(on queue: DispatchQueue?) {
            wrappedCompletion = completion.map { completion in
                let box = UncheckedSendable(completion)
                return { queue?.async { box.value() } }
            }
        }

        // The status is checked and the emit kept in one critical section of the machine.
        let nsp = self.nsp
        var refusal: Bool?
        var outgoing: [OutgoingListener] = []
        var parser = SocketParser.json
        // The ack's deadline is read from the timer source's clock before the critical section.
        let sessionAck: Session.EmitAck
        switch ack {
        case nil: sessionAck = .none
        case .id(let id)?: sessionAck = .id(id)
        case .register(let pending, let timeout)?:
            let timers = self.core.timers
            sessionAck = .register(pending, deadline: Session.ackDeadline(afterSeconds: timeout, now: timers.now))
        }
        let slot = self.state.slot
        // Written in the emit's section: the engine this manager made (its half is in this
        // core) takes a JSON emit that is sent now in the same section, so the emit costs one.
        var written: (engine: SocketEngine, packet: SocketEncodedPacket, outcome: SocketEngine.WriteOutcome)?
        // The engine's readers to resume: an awaited ack registered here may let a stream that
        // fell behind read on (its answer comes behind the stream's events).
        var wake: [UnsafeContinuation<Void, Never>] = []
        let decided = self.core.state.withLock { core -> Session.EmitOutcome? in
            wrap(on: core.manager?.options.handleQueue ?? foreign?.queue)
            engine = core.manager?.engine ?? foreign?.engine
            guard let outcome = core.withSocket(slot, wake: &wake, { decide(&$0) }) else { return nil }
            if case .send = outcome.decision, parser == .json, let direct = core.manager?.coreEngine {
                // `[Any]` to `JSONValue` to the packet's text, without upstream's `SocketPacket`.
                let packet = SocketPacketEncoder.encode(
                    Self.protocolPacket(isAck: isAck, namespace: nsp, ackID: outcome.ackID, data: data))
                written = (
                    direct, packet, direct.write(packet.enginePackets, completion: wrappedCompletion, in: &core.engines[direct.state.slot])
                )
            }
            return outcome
        }
        for reader in wake { reader.resume() }
        func decide(_ state: inout State) -> Session.EmitOutcome? {
            if refusesUnlessConnected, state.session.connection.status != .connected, !Self.keepsEmits(state) {
                refusal = state.session.connection.status == .connecting
                return nil
            }
            if retried != nil, state.retryQueue != nil { return nil }
            if !isAck { outgoing = state.outgoingListeners }
            parser = state.parser
            let outcome = state.session.emit(
                { Self.protocolPacket(isAck: isAck, namespace: nsp, ackID: $0, data: data) }, ack: sessionAck,
                completion: wrappedCompletion, volatile: volatile)
            self.apply(outcome.ackTimer, to: &state)
            return outcome
        }
        guard let outcome = decided else {
            if let refusal { return .refused(connecting: refusal) }
            if let retried, let queued = self.enqueueRetried(retried) { return .retried(queued) }
            // `.retries` went off since: sent as a plain emit.
            return self.emit(
                data, ack: ack, binary: binary, isAck: isAck, volatile: volatile, completion: completion, retried: nil,
                refusesUnlessConnected: refusesUnlessConnected)
        }
        ackID = outcome.ackID
        switch outcome.decision {
        case .send:
            break
        case .buffered:
            DefaultSocketLogger.Logger.log("Keeping an emit until connected", type: logType)
            return .direct(sent: true, ackID: ackID)
        case .dropped:
            DefaultSocketLogger.Logger.log("Dropping a volatile emit: not connected", type: logType)
            wrappedCompletion?()
            return .direct(sent: false, ackID: ackID)
        case .notConnected:
            wrappedCompletion?()
            handleClientEvent(.error, data: ["Tried emitting when not connected"])
            return .direct(sent: false, ackID: ackID)
        case .bufferFull(let limit):
            wrappedCompletion?()
            handleClientEvent(.error, data: ["Send buffer full (\(limit) emits): not sent"])
            return .direct(sent: false, ackID: ackID)
        }

        defer {
            // The listeners first: the cast costs a dynamic cast on every emit.
            if !outgoing.isEmpty, !isAck, let name = data.first as? String {
                self.reportOutgoing(outgoing, event: name, items: Array(data.dropFirst()))
            }
        }
        if parser == .msgpack {
            // socket.io-msgpack-parser: one binary message per packet, binary data inline.
            self.send(Self.protocolPacket(isAck: isAck, namespace: nsp, ackID: ackID, data: data), completion: wrappedCompletion)
            return .direct(sent: true, ackID: ackID)
        }

        // Read in place: binding the optional tuple would copy it.
        if written != nil {
            self.logEmitting(bytes: written!.packet.text.utf8.count, attachments: written!.packet.attachments.count, isAck: isAck)
            do {
                try written!.engine.perform(written!.outcome)
            } catch {
                written!.engine.refused(error, completion: wrappedCompletion)
            }
            return .direct(sent: true, ackID: ackID)
        }
        let packet = SocketPacket.packetFromEmit(data, id: ackID ?? -1, nsp: nsp, ack: isAck, checkForBinary: binary)
        let text = packet.packetString
        self.logEmitting(bytes: text.utf8.count, attachments: packet.binary.count, isAck: isAck)
        engine?.send(text, withData: packet.binary, completion: wrappedCompletion)
        return .direct(sent: true, ackID: ackID)
    }

    private func logEmitting(bytes: Int, attachments: Int, isAck: Bool) {
        let type: SocketPacket.PacketType = isAck ? (attachments > 0 ? .binaryAck : .ack) : (attachments > 0 ? .binaryEvent : .event)
        DefaultSocketLogger.Logger.log(
            "Emitting packet type \(type.rawValue), \(bytes) bytes, \(attachments) attachments, ack: \(isAck)", type: logType)
    }

    /// Call when you wish to tell the server that you've received the event for `ack`.
    ///
    /// **You shouldn't need to call this directly.** Instead use an `SocketAckEmitter` that comes in an event callback.
    ///
    /// - parameter ack: The ack number.
    /// - parameter items: The data for this ack.
    open func emitAck(_ ack: Int, with items: [Any]) {
        emit(items, ack: ack, binary: true, isAck: true)
    }

    /// Called when socket.io has acked one of our emits. Causes the corresponding ack callback to be called.
    ///
    /// - parameter ack: The number for this ack.
    /// - parameter data: The data sent back with this ack.
    open func handleAck(_ ack: Int, data: [Any]) {
        // The decoded arguments when this is the network ack the socket handed over unchanged;
        // the status from the same critical section.
        // The status checked and the ack resolved in one critical section.
        let (connected, pending, decoded) = self.state.withLock { state -> (Bool, PendingAck?, [JSONValue]?) in
            defer { state.networkArguments = nil }
            guard state.session.connection.status == .connected else { return (false, nil, nil) }
            let pending = state.session.resolveAck(ack)
            return (true, pending, state.networkArguments?.decoded(for: data))
        }
        guard connected else { return }

        DefaultSocketLogger.Logger.log("Handling ack: \(ack)", type: logType)

        let items: AckItems = decoded.map { .values($0) } ?? .items(data)
        switch pending {
        case .callback(let callback)?: callback(data)
        case .waiter(let waiter)?: waiter(.ack(items))
        case .queued(let sequence)?: self.retryAcknowledged(sequence: sequence, items: items)
        case nil: break
        }
    }

    /// Called on socket.io specific events.
    ///
    /// - parameter event: The `SocketClientEvent`.
    /// - parameter data: The data for this event.
    open func handleClientEvent(_ event: SocketClientEvent, data: [Any]) {
        handleEvent(event.rawValue, data: data, isInternalMessage: true)
    }

    /// Called when we get an event from socket.io.
    ///
    /// - parameter event: The name of the event.
    /// - parameter data: The data that was sent with this event.
    /// - parameter isInternalMessage: Whether this event was sent internally. If `true` it is always sent to handlers.
    /// - parameter ack: If > 0 then this event expects to get an ack back from the client.
    open func handleEvent(_ event: String, data: [Any], isInternalMessage: Bool, withAck ack: Int = -1) {
        let (anyHandler, handlers, subscribers, decoded) = self.state.withLock {
            state -> (((SocketAnyEvent) -> Void)?, [SocketEventHandler], [IncomingSubscriber], NetworkEventArguments?) in
            // The decoded arguments when this is the network event the socket handed over
            // unchanged (``NetworkArguments``).
            var decoded: NetworkEventArguments?
            if !isInternalMessage, let values = state.networkArguments?.decoded(for: data) {
                decoded = NetworkEventArguments(
                    values: values, endsWithRecoveryOffset: Self.endsWithRecoveryOffset(values, asksForAck: ack >= 0, in: state))
            }
            if !isInternalMessage { state.networkArguments = nil }
            guard state.session.connection.status == .connected || isInternalMessage else { return (nil, [], [], nil) }
            return (
                state.anyHandler, state.handlers.filter { $0.event == event }, isInternalMessage ? [] : state.incomingSubscribers,
                decoded
            )
        }
        for subscriber in subscribers {
            if let decoded {
                subscriber.values(event, decoded.values)
            } else {
                subscriber.items(event, data)
            }
        }
        guard anyHandler != nil || !handlers.isEmpty else { return }

        DefaultSocketLogger.Logger.log("Handling event: \(event) with \(data.count) items", type: logType)

        anyHandler?(SocketAnyEvent(event: event, items: data))

        for handler in handlers {
            if let decoded, let values = handler.values {
                values(decoded)
            } else {
                handler.executeCallback(with: data, withAck: ack, withSocket: self)
            }
        }
    }

    /// Causes a client to handle a socket.io packet. The namespace for the packet must match the namespace of the
    /// socket.
    ///
    /// The packet goes through the namespace's `NamespaceStateMachine` (socket.io-protocol v5,
    /// "Connection to a namespace"). Events that arrive while the socket is `connecting`
    /// (python-socketio sends what its connect handler emits before the CONNECT packet) are
    /// kept (up to 1,000; one more leaves the namespace) and delivered in order just before the
    /// `connect` client event (socket.io-client's order, which a recovering server's replay
    /// relies on), instead of being dropped as upstream does.
    ///
    /// A CONNECT_ERROR (`.error`) packet is reported as an `error` client event carrying the server's
    /// object (`["message": ..., "data": ...]`), and — unlike upstream — moves a connecting socket
    /// to `.disconnected`, so `connect` can be called again (for example with a fresh token).
    ///
    /// - parameter packet: The packet to handle.
    open func handlePacket(_ packet: SocketPacket) {
        guard packet.nsp == nsp else { return }

        let actions = self.state.withLock { state -> [SessionAction] in
            // A network packet handed over by the core ran through the machine already.
            if let delivery = state.networkDelivery.take() { return delivery }
            return state.session.receive(SocketIOClient.protocolPacket(of: packet, full: !state.session.connection.isConnected))
                .actions
        }
        perform(actions, reason: "Got Disconnect", receiving: .upstream(packet))

        if packet.type == .error {
            // Reported even when unsolicited, as upstream does.
            handleEvent("error", data: packet.data, isInternalMessage: true, withAck: packet.id)
        }
    }

    /// Call when you wish to leave a namespace and disconnect this socket.
    open func leaveNamespace() {
        manager?.disconnectSocket(self)
    }

    /// Joins `nsp`. You shouldn't need to call this directly, instead call `connect`.
    ///
    /// - parameter payload: An optional payload sent on connect
    open func joinNamespace(withPayload payload: [String: Any]? = nil) {
        DefaultSocketLogger.Logger.log("Joining namespace \(nsp)", type: logType)

        self.join { $0.connect(auth: payload.map { SocketValueConversion.jsonValue(from: $0) }) }
    }

    /// Joins `nsp` with the machine input `connect` (a fixed auth payload, or the provider's).
    func join(_ connect: (inout Session) -> [SessionAction]) {
        guard let manager else { return }
        let engineSID = manager.engine?.sid
        let revision = manager.version.protocolRevision
        let options = self.core.managerOptions
        let sendBuffer = options?.sendBuffer ?? 0
        let parser = options?.parser ?? .json
        if parser == .msgpack, revision == .v4 {
            DefaultSocketLogger.Logger.error(SocketParser.versionTwoRefusal, type: logType)
            self.changeStatus { $0.session.connection.connectRefused() }
            handleClientEvent(.error, data: [SocketParser.versionTwoRefusal])
            return
        }
        func decide(_ state: inout State, _ managerStatus: SocketIOStatus) -> (Bool, [SessionAction]) {
            // The manager's version and send buffer as they are now (set after this socket was
            // made, they apply from this join on).
            if !state.session.connection.isConnected { state.session.connection.revision = revision }
            state.session.connection.maximumSendBuffer = sendBuffer
            state.parser = parser
            Self.applyRetryOptions(
                retries: options?.retries ?? 0, ackTimeout: options?.ackTimeout ?? 0, sendBuffer: sendBuffer, to: &state)
            let managerIsOpen = managerStatus == .connected
            // A socket created after the engine opened learns it here.
            var actions = managerIsOpen ? state.session.transportOpened(engineSID: engineSID) : []
            actions += connect(&state.session)
            return (managerIsOpen, actions)
        }
        // The manager's status is read in this join's critical section, so an engine open the
        // manager reports to this socket is ordered with the join: either the join sees it, or
        // the report comes after the join. A `SocketManager`'s half of the state is in this
        // socket's core; another manager's status is read under the core's lock (socket, then
        // manager).
        let slot = self.state.slot
        var wake: [UnsafeContinuation<Void, Never>] = []
        let (managerIsOpen, actions) = self.core.state.withLock { core in
            let managerStatus = core.manager.map { SocketIOStatus($0.session.status) } ?? manager.status
            return core.withSocket(slot, wake: &wake) { decide(&$0, managerStatus) }
        }
        for reader in wake { reader.resume() }
        perform(actions, reason: "Namespace leave", receiving: nil)

        if !managerIsOpen {
            DefaultSocketLogger.Logger.log("Tried connecting socket when engine isn't open. Connecting", type: logType)
            manager.connect()
        }
    }

    /// Removes handler(s) for a client event.
    ///
    /// If you wish to remove a client event handler, call the `off(id:)` with the UUID received from its `on` call.
    ///
    /// - parameter event: The event to remove handlers for.
    open func off(clientEvent event: SocketClientEvent) {
        off(event.rawValue)
    }

    /// Removes handler(s) based on an event name.
    ///
    /// If you wish to remove a specific event, call the `off(id:)` with the UUID received from its `on` call.
    ///
    /// - parameter event: The event to remove handlers for.
    open func off(_ event: String) {
        DefaultSocketLogger.Logger.log("Removing handler for event: \(event)", type: logType)

        self.state.withLock { $0.handlers.removeAll(where: { $0.event == event }) }
    }

    /// Removes a handler with the specified UUID gotten from an `on` or `once`
    ///
    /// If you want to remove all events for an event, call the off `off(_:)` method with the event name.
    ///
    /// - parameter id: The UUID of the handler you wish to remove.
    open func off(id: UUID) {
        DefaultSocketLogger.Logger.log("Removing handler with id: \(id)", type: logType)

        self.state.withLock { $0.handlers.removeAll(where: { $0.id == id }) }
    }

    /// Adds a handler for an event.
    ///
    /// - parameter event: The event name for this handler.
    /// - parameter callback: The callback that will execute when this event is received.
    /// - returns: A unique id for the handler that can be used to remove it.
    @discardableResult
    open func on(_ event: String, callback: @escaping NormalCallback) -> UUID {
        DefaultSocketLogger.Logger.log("Adding handler for event: \(event)", type: logType)

        let handler = SocketEventHandler(event: event, id: UUID(), callback: callback)
        self.state.withLock { $0.handlers.append(handler) }

        return handler.id
    }

    /// Adds a handler for a client event.
    ///
    /// ```swift
    /// socket.on(clientEvent: .connect) {data, ack in
    ///     ...
    /// }
    /// ```
    ///
    /// - parameter event: The event for this handler.
    /// - parameter callback: The callback that will execute when this event is received.
    /// - returns: A unique id for the handler that can be used to remove it.
    @discardableResult
    open func on(clientEvent event: SocketClientEvent, callback: @escaping NormalCallback) -> UUID {
        return on(event.rawValue, callback: callback)
    }

    /// Adds a single-use handler for a client event.
    ///
    /// - parameter event: The event for this handler.
    /// - parameter callback: The callback that will execute when this event is received.
    /// - returns: A unique id for the handler that can be used to remove it.
    @discardableResult
    open func once(clientEvent event: SocketClientEvent, callback: @escaping NormalCallback) -> UUID {
        return once(event.rawValue, callback: callback)
    }

    /// Adds a single-use handler for an event.
    ///
    /// - parameter event: The event name for this handler.
    /// - parameter callback: The callback that will execute when this event is received.
    /// - returns: A unique id for the handler that can be used to remove it.
    @discardableResult
    open func once(_ event: String, callback: @escaping NormalCallback) -> UUID {
        DefaultSocketLogger.Logger.log("Adding once handler for event: \(event)", type: logType)

        let id = UUID()

        let handler = SocketEventHandler(event: event, id: id) { [weak self] data, ack in
            guard let this = self else { return }
            // Remove first and run only if this call removed it: a once handler runs once even
            // when two events race on different threads.
            let removed = this.state.withLock { state -> Bool in
                let before = state.handlers.count
                state.handlers.removeAll(where: { $0.id == id })
                return state.handlers.count != before
            }
            guard removed else { return }
            callback(data, ack)
        }

        self.state.withLock { $0.handlers.append(handler) }

        return handler.id
    }

    /// Adds a handler that will be called on every event.
    ///
    /// - parameter handler: The callback that will execute whenever an event is received.
    open func onAny(_ handler: @escaping (SocketAnyEvent) -> Void) {
        self.state.withLock { $0.anyHandler = handler }
    }

    /// Tries to reconnect to the server.
    @available(*, unavailable, message: "Call the manager's reconnect method")
    open func reconnect() {}

    /// Removes all handlers.
    ///
    /// Can be used after disconnecting to break any potential remaining retain cycles.
    open func removeAllHandlers() {
        self.state.withLock { $0.handlers.removeAll(keepingCapacity: false) }
    }

    /// Puts the socket back into the connecting state.
    /// Called when the manager detects a broken connection, or when a manual reconnect is triggered.
    ///
    /// - parameter reason: The reason this socket is reconnecting.
    open func setReconnecting(reason: String) {
        setStatus(.connecting)

        handleClientEvent(.reconnect, data: [reason])
    }
}
