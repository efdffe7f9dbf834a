package import EngineIOProtocol
package import RealtimeTime

/// One socket's half of a session: its namespace connection, the acks its emits wait for and
/// the completions of the emits kept while connecting, as one sans-I/O machine with one list
/// of actions.
///
/// It composes two parts, each with its own tests:
/// - ``connection``, the ``NamespaceStateMachine`` (CONNECT and its acknowledgement, the send
///   buffer, the status the socket reports, recovery);
/// - ``acks``, the ``AckTable`` (ids, deadlines, the one wake-up for the earliest deadline).
///
/// What the composition adds, so an owner does not keep the parts in step itself:
/// - **An emit is one input.** The ack is registered, the status checked and the emit kept or
///   refused in one step (``emit(_:ack:completion:volatile:)``), so an early answer is never
///   missed and a connect cannot slip between the check and the send.
/// - **A kept emit's completion stays with it.** The machine keeps the owner's `Completion`
///   under the write id the connection part knows, and hands it back with the packet to send
///   (``NamespaceSessionAction/sendKept(_:completion:)``) or with the discarded ones.
/// - **An ack is resolved where it arrives.** ``receive(_:resolvingAcks:)`` looks the ACK's id
///   up in the same step that ran the packet through the connection, for an owner that
///   performs acks on the reading thread.
/// - **The ack timer is an output.** Every input that may move the owner's one wake-up (a
///   registration, the wake-up firing, a disconnect) returns the change
///   (``AckTable/WakeUpChange``), and every deadline comes from a `now:` the owner read: the
///   machine never reads a clock. An answered or removed ack changes no timer: the wake-up is
///   lazy and may fire once for an ack that is gone (``AckTable``).
///
/// ```swift
/// var session = NamespaceSessionMachine(namespace: "/")
/// session.connect(auth: nil)                                   // [] until the transport opens
/// session.transportOpened()                                    // [.send(0)]
/// let emit = session.emit({ id in event(ackID: id) },
///     ack: .register(.callback(callback), deadline: now + .seconds(5)), completion: nil, volatile: false)
///                                                              // .notConnected, ack 0, .arm
/// ```
///
/// - Important: A value type with no locking; the owner keeps it under its one lock, applies
///   each wake-up change in the same critical section, and performs the actions in order after
///   releasing it.
package struct NamespaceSessionMachine {
    /// What runs when an emit is written: the owner's, kept with a kept emit.
    package typealias Completion = () -> Void
    /// The change to the owner's one ack wake-up an input asks for.
    package typealias AckWakeUp = AckTable<PendingAck>.WakeUpChange

    /// The namespace connection and the status the socket reports. Inputs that return no
    /// actions (the status inputs) are given to it directly.
    package var connection: NamespaceStateMachine
    /// The acks the socket's emits wait for; changed only through the machine's inputs, so
    /// each change's wake-up is returned with it.
    package private(set) var acks = AckTable<PendingAck>()
    /// How many of ``acks`` an awaiting operation waits for (``PendingAck/isAwaited``), kept
    /// by every input that adds or removes an ack: the owner adds them up across its sockets,
    /// and while any is outstanding a stream that fell behind does not stop the reading the
    /// answer needs (``InboundBacklog``).
    package private(set) var awaitedAcks = 0
    /// The completions of the emits the connection part keeps, by the write id it was given.
    private var keptCompletions: [Int: Completion] = [:]
    private var nextWriteID = 0

    /// A machine for `namespace`, disconnected, with the transport not open and no ack waiting.
    package init(namespace: String, revision: SocketProtocolRevision = .v5) {
        self.connection = NamespaceStateMachine(namespace: namespace, revision: revision)
    }

    /// The machine's actions for what one input did, in order. A received packet never
    /// changes the ack wake-up: an ACK resolved here leaves it as it is (``AckTable``).
    package struct Step {
        package var actions: [NamespaceSessionAction]

        init(_ actions: [NamespaceSessionAction] = []) {
            self.actions = actions
        }
    }

    // MARK: Acks

    /// The deadline of an ack that waits `seconds` from `now`: none for 0, a negative or a
    /// non-finite value (socket.io-client-swift's `timingOut(after: 0)` waits forever).
    package static func ackDeadline(afterSeconds seconds: Double, now: MonotonicInstant) -> MonotonicInstant? {
        guard seconds > 0, seconds.isFinite else { return nil }
        return now + .seconds(seconds)
    }

    /// Registers `pending` under a new ack id, outside any emit (upstream's public ack
    /// registration and tests).
    package mutating func registerAck(_ pending: PendingAck, deadline: MonotonicInstant?) -> (id: Int, ackTimer: AckWakeUp?) {
        let id = self.acks.register(pending, deadline: deadline)
        if pending.isAwaited { self.awaitedAcks += 1 }
        return (id, self.acks.wakeUpChange())
    }

    /// Removes and returns what waits for `id`: `nil` for an unknown, answered or expired id,
    /// and, with `ifConnected`, while the socket is not reported connected (upstream's
    /// `handleAck` ignores acks then). The ack wake-up stays as it is.
    package mutating func resolveAck(_ id: Int, ifConnected: Bool = false) -> PendingAck? {
        guard !ifConnected || self.connection.status == .connected else { return nil }
        let resolved = self.acks.resolve(id: id)
        if resolved?.isAwaited == true { self.awaitedAcks -= 1 }
        return resolved
    }

    /// Counts out the awaited acks among `removed`.
    private mutating func removed(_ removed: [AckTable<PendingAck>.Entry]) {
        for entry in removed where entry.pending.isAwaited { self.awaitedAcks -= 1 }
    }

    /// The owner's wake-up armed for `firedWakeUp` fired at `now`: every ack whose deadline
    /// passed, by increasing id, and the wake-up for the earliest deadline still waiting.
    ///
    /// - Returns: the expired acks, and the change to the wake-up: armed for what still waits,
    ///   or `.cancel` (let go of the fired timer) when nothing with a deadline does; `nil` for
    ///   a replaced wake-up that fired late (the current one stays).
    package mutating func acksExpired(now: MonotonicInstant, firedWakeUp: MonotonicInstant) -> (
        expired: [AckTable<PendingAck>.Entry], ackTimer: AckWakeUp?
    ) {
        self.acks.wakeUpFired(armedFor: firedWakeUp)
        let expired = self.acks.expire(now: now)
        self.removed(expired)
        return (expired, self.acks.wakeUpChange())
    }

    /// Removes the acks whose pending value matches (a cancelled retry's try), by increasing
    /// id. The ack wake-up stays as it is.
    package mutating func removeAcks(where matches: (PendingAck) -> Bool) -> [AckTable<PendingAck>.Entry] {
        let removed = self.acks.remove(where: matches)
        self.removed(removed)
        return removed
    }

    /// The socket's connection ended: removes the acks it drops then (the waiters, the retry
    /// queue's tries), by increasing id, and cancels the ack wake-up when nothing left waits
    /// with a deadline, so a disconnected socket keeps no timer it does not need (callbacks
    /// keep waiting for their timeouts, and the wake-up with them).
    package mutating func removeAcksAtDisconnect(where matches: (PendingAck) -> Bool) -> (
        removed: [AckTable<PendingAck>.Entry], ackTimer: AckWakeUp?
    ) {
        let removed = self.acks.remove(where: matches)
        self.removed(removed)
        self.acks.releaseIdleWakeUp()
        return (removed, self.acks.wakeUpChange())
    }

    // MARK: Emits

    /// The ack of an emit.
    package enum EmitAck {
        /// None: a plain emit, or an ACK the socket sends.
        case none
        /// An id given by the caller (registered already, or the server's id for an ACK).
        case id(Int)
        /// Register `pending` under a new id, in the step that decides the emit.
        case register(PendingAck, deadline: MonotonicInstant?)
    }

    /// What became of an emit.
    package struct EmitOutcome {
        /// Sent now, kept, dropped or refused (see ``NamespaceStateMachine/EmitDecision``).
        package var decision: NamespaceStateMachine.EmitDecision
        /// The emit's ack id: the one given or the one registered. A registered ack stays
        /// registered when the emit is refused, as upstream's waits for its timeout.
        package var ackID: Int?
        /// The completion, when the machine did not keep it (the emit is sent, dropped or
        /// refused): the owner runs it.
        package var completion: Completion?
        /// The change to the owner's ack wake-up.
        package var ackTimer: AckWakeUp?
    }

    /// An EVENT or ACK to send: the ack registered, the status checked and the emit kept or
    /// refused in one step.
    ///
    /// - Parameters:
    ///   - packet: Builds the packet for the emit's ack id; called only when the emit is kept
    ///     (an emit sent now is encoded by the owner).
    ///   - completion: What runs when the emit is written; kept with a kept emit.
    ///   - volatile: Drop instead of keeping.
    package mutating func emit(
        _ packet: (_ ackID: Int?) -> SocketPacket, ack: EmitAck, completion: Completion?, volatile: Bool
    ) -> EmitOutcome {
        var ackID: Int?
        var ackTimer: AckWakeUp?
        switch ack {
        case .none:
            break
        case .id(let id):
            ackID = id
        case .register(let pending, let deadline):
            ackID = self.acks.register(pending, deadline: deadline)
            if pending.isAwaited { self.awaitedAcks += 1 }
            ackTimer = self.acks.wakeUpChange()
        }
        let writeID = self.nextWriteID
        let decision = self.connection.emit(packet(ackID), writeID: writeID, volatile: volatile)
        guard case .buffered = decision else {
            return EmitOutcome(decision: decision, ackID: ackID, completion: completion, ackTimer: ackTimer)
        }
        self.nextWriteID &+= 1
        if let completion { self.keptCompletions[writeID] = completion }
        return EmitOutcome(decision: decision, ackID: ackID, completion: nil, ackTimer: ackTimer)
    }

    /// The kept emits handed out by ``reportConnected(sid:)`` are sent: those kept meanwhile
    /// (which waited behind them) come out the same way; none left ends the flush.
    package mutating func sendBufferFlushed() -> [NamespaceSessionAction] {
        self.translate(self.connection.sendBufferFlushed())
    }

    // MARK: Inputs from the user and the socket

    /// Starts connecting with a fixed auth payload (``NamespaceStateMachine/connect(auth:)``).
    package mutating func connect(auth: JSONValue?) -> [NamespaceSessionAction] {
        self.translate(self.connection.connect(auth: auth))
    }

    /// Starts connecting with the payload of the owner's auth provider, asked before each
    /// CONNECT (``NamespaceStateMachine/connectAskingForAuth()``).
    package mutating func connectAskingForAuth() -> [NamespaceSessionAction] {
        self.translate(self.connection.connectAskingForAuth())
    }

    /// The provider's answer to `request`.
    package mutating func authProvided(_ auth: JSONValue?, request: Int) -> [NamespaceSessionAction] {
        self.translate(self.connection.authProvided(auth, request: request))
    }

    /// The provider failed to answer `request`.
    package mutating func authFailed(_ message: String, request: Int) -> [NamespaceSessionAction] {
        self.translate(self.connection.authFailed(message, request: request))
    }

    /// Leaves the namespace.
    package mutating func disconnect() -> [NamespaceSessionAction] {
        self.translate(self.connection.disconnect())
    }

    /// The socket reports `connected` (`didConnect`): `nil` when it was; otherwise what arrived
    /// before the acknowledgement and the kept emits, in order.
    package mutating func reportConnected(sid: String?) -> [NamespaceSessionAction]? {
        self.connection.reportConnected(sid: sid).map { self.translate($0) }
    }

    // MARK: Inputs from the Engine.IO session

    /// The Engine.IO session opened (or reopened).
    package mutating func transportOpened(engineSID: String? = nil) -> [NamespaceSessionAction] {
        self.translate(self.connection.transportOpened(engineSID: engineSID))
    }

    /// The Engine.IO session closed; `willReconnect` when the manager opens another.
    package mutating func transportClosed(willReconnect: Bool) -> [NamespaceSessionAction] {
        self.translate(self.connection.transportClosed(willReconnect: willReconnect))
    }

    /// A packet for this namespace arrived (binary attachments in place).
    ///
    /// - Parameter resolvingAcks: `true` when the owner performs this packet's actions at once
    ///   (on the thread that read it): an ACK for a socket reported connected is looked up in
    ///   this step and comes out as ``NamespaceSessionAction/ackResolved(_:_:)``, or as nothing
    ///   when no emit waits for its id (late, duplicate or unknown). `false`: it comes out as
    ///   ``NamespaceSessionAction/deliverAck(_:)``, for the owner's own ack path.
    package mutating func receive(_ packet: SocketPacket, resolvingAcks: Bool = false) -> Step {
        // Nearly every packet is an EVENT or ACK while connected: one action, one list.
        if let delivery = self.connection.deliveryWhileConnected(packet) {
            return self.step(CollectionOfOne(delivery), resolvingAcks: resolvingAcks)
        }
        return self.step(self.connection.receive(packet), resolvingAcks: resolvingAcks)
    }

    // MARK: Helpers

    /// The connection part's actions for a received packet, translated, with each ACK resolved
    /// when `resolvingAcks`.
    private mutating func step(_ actions: some Collection<NamespaceAction>, resolvingAcks: Bool) -> Step {
        var step = Step()
        step.actions.reserveCapacity(actions.count)
        for action in actions {
            guard resolvingAcks, case .deliverAck(let ack) = action else {
                step.actions.append(self.translate(action))
                continue
            }
            if let pending = self.resolveAck(ack.ackID ?? -1, ifConnected: true) {
                step.actions.append(.ackResolved(pending, ack))
            }
        }
        return step
    }

    /// The connection part's actions, with each kept emit's write id swapped for its completion.
    private mutating func translate(_ actions: some Collection<NamespaceAction>) -> [NamespaceSessionAction] {
        var translated: [NamespaceSessionAction] = []
        translated.reserveCapacity(actions.count)
        for action in actions {
            translated.append(self.translate(action))
        }
        return translated
    }

    private mutating func translate(_ action: NamespaceAction) -> NamespaceSessionAction {
        switch action {
        case .send(let packet): .send(packet)
        case .sendBuffered(let packet, let writeID): .sendKept(packet, completion: self.takeCompletion(writeID))
        case .discardBuffered(let writeIDs): .discardKept(completions: writeIDs.map { self.takeCompletion($0) })
        case .requestAuth(let request): .requestAuth(request)
        case .connected(let sid): .connected(sid: sid)
        case .deliverEvent(let packet): .deliverEvent(packet)
        case .deliverAck(let packet): .deliverAck(packet)
        case .connectError(let message, let data): .connectError(message: message, data: data)
        case .reconnecting: .reconnecting
        case .disconnected(let reason): .disconnected(reason)
        }
    }

    private mutating func takeCompletion(_ writeID: Int?) -> Completion? {
        writeID.flatMap { self.keptCompletions.removeValue(forKey: $0) }
    }
}

/// What the owner of a ``NamespaceSessionMachine`` must do, in order: the connection's
/// actions (``NamespaceAction``), with the machine's own parts resolved.
package enum NamespaceSessionAction {
    /// Encode and send this packet over the Engine.IO session.
    case send(SocketPacket)
    /// Send an emit kept while connecting, then run its completion when it is written.
    case sendKept(SocketPacket, completion: NamespaceSessionMachine.Completion?)
    /// The emits kept while connecting were discarded (the namespace was left or refused):
    /// their completions, in order (`nil` for one without).
    case discardKept(completions: [NamespaceSessionMachine.Completion?])
    /// Ask the auth provider for the CONNECT payload (``NamespaceAction/requestAuth(_:)``).
    case requestAuth(Int)
    /// The namespace is connected.
    case connected(sid: String)
    /// Hand an EVENT / BINARY_EVENT to the event handlers.
    case deliverEvent(SocketPacket)
    /// Hand an ACK / BINARY_ACK to the owner's ack path (resolved there).
    case deliverAck(SocketPacket)
    /// An ACK whose waiting emit was resolved in this step: settle `pending` with the packet's
    /// arguments.
    case ackResolved(PendingAck, SocketPacket)
    /// The server refused the connection.
    case connectError(message: String, data: JSONValue?)
    /// The namespace was connected and now waits for the session to come back.
    case reconnecting
    /// The namespace is disconnected.
    case disconnected(NamespaceDisconnectReason)
}
