package import RealtimeTime

/// The manager's half of one Socket.IO session as one machine: the packets the engine's
/// messages make, the bound on the work queued for the app's handlers, and reconnection.
/// Sans-I/O: time (`now:`) and randomness (`random:`) are inputs, every timer is an action it
/// returns, and the driver (`SocketManager`) performs the actions in order with no lock held.
///
/// It composes three parts, each a machine of its own with its own tests:
/// - ``SocketPacketReader``: text and binary messages into whole packets (socket.io-client-
///   swift's interleaving: at most 16 binary packets wait, the newest gets the next
///   attachment); with ``Wire/messagePack`` a binary message is one whole packet
///   (``SocketMessagePackDecoder``) and a text message is ignored, as both references do;
/// - ``InboundBacklog``: the work queued on `handleQueue` and not run yet; a packet is for
///   the reading thread (``Action/deliver(_:direct:)`` with `direct: true`) only while none is
///   queued, so nothing overtakes earlier work, and reading pauses at the bound;
/// - ``ReconnectStateMachine``: the manager's status, the tries, their delays
///   (``ReconnectBackoff``, from the ``Reconnection`` settings given with each input, so a
///   setting changed in between applies to the next decision, as upstream's do) and stale
///   timers; a try's timer is ``Action/armRetryTimer(at:timer:)``, a deadline from `now`.
///
/// The namespaces (each socket's `NamespaceStateMachine` and `AckTable`) stay with their
/// sockets: a socket can belong to a manager of the app's own (`SocketManagerSpec`), so its
/// state cannot live only here. A `SocketManager`'s sockets lock the session's one mutex, so
/// this machine and theirs are never changed at the same time by two threads.
///
/// ```swift
/// var session = SocketSessionMachine(wire: .json, revision: .v5)
/// session.receive(text: #"2["hi"]"#)        // .deliver(packet, direct: true)
/// session.transportClosed(now: now, reconnection: .init(), random: 0.3)
/// // [.beginReconnecting, .attempt(eventValue: -1), .armRetryTimer(at: now + 10.x s, timer: 1)]
/// ```
package struct SocketSessionMachine: Sendable {
    /// How packets travel on the wire (the manager's `.parser`).
    package enum Wire: Sendable, Hashable {
        /// socket.io-parser: text packets, binary data as attachments after them.
        case json
        /// socket.io-msgpack-parser: every packet one binary message.
        case messagePack
    }

    /// The reconnection settings in force when an input decides (upstream reads its public,
    /// settable properties at each decision).
    package struct Reconnection: Sendable, Hashable {
        /// Whether a lost transport is reconnected at all.
        package var reconnects: Bool
        /// Minimum and maximum wait in seconds, jitter factor, and the most tries (-1: no limit).
        package var wait: Double
        package var waitMax: Double
        package var randomizationFactor: Double
        package var attempts: Int

        /// upstream's defaults: reconnect, 10 s to 30 s, jitter 0.5, no limit.
        package init(reconnects: Bool = true, wait: Double = 10, waitMax: Double = 30, randomizationFactor: Double = 0.5, attempts: Int = -1) {
            self.reconnects = reconnects
            self.wait = wait
            self.waitMax = waitMax
            self.randomizationFactor = randomizationFactor
            self.attempts = attempts
        }
    }

    /// What the driver does, in order.
    package enum Action: Sendable, Hashable {
        // The packet path.

        /// A whole packet for its namespace: on the reading thread when `direct`, else
        /// behind the work queued on `handleQueue` (``workQueued()`` counts it).
        case deliver(SocketPacket, direct: Bool)
        /// A message that makes no packet: logged, nothing else (upstream drops it).
        case rejected(SocketProtocolError)
        /// A text message with ``Wire/messagePack`` (its size in bytes): ignored.
        case textIgnored(bytes: Int)
        /// Stop reading from the network: the queued work reached the bound.
        case pauseReading
        /// Read again: the queued work is down to half the bound.
        case resumeReading

        // Reconnection (``ReconnectStateMachine/Action``, its timer as a deadline).

        /// The transport closed for good: every socket hears it (no reconnect follows).
        case disconnect
        /// Reconnecting starts: every socket hears the transport closed, a reconnect follows.
        case beginReconnecting
        /// Report `reconnectAttempt` with `eventValue` and connect a new engine.
        case attempt(eventValue: Int)
        /// Call ``retryTimerFired(_:now:reconnection:random:)`` with `timer` at `deadline`.
        case armRetryTimer(at: MonotonicInstant, timer: Int)
        /// The tries are spent: close the engine and disconnect with "Reconnect Failed".
        case giveUp
        /// The transport opened: every waiting namespace (re)joins.
        case rejoin
    }

    /// How packets travel; the revision is the reader's (``setRevision(_:)``).
    package var wire: Wire
    private var reader: SocketPacketReader
    private var backlog: InboundBacklog
    private var reconnect = ReconnectStateMachine()
    private let messagePackDecoder: SocketMessagePackDecoder

    /// At most 16 binary packets wait for attachments (socket.io-client-swift's reader keeps
    /// every one; a bound keeps a hostile server from growing it).
    package static let maximumWaitingPackets = 16

    /// - Parameters:
    ///   - wire: json or MessagePack.
    ///   - revision: the Socket.IO protocol revision the text decoder reads.
    ///   - backlog: the bound on queued work (1,024 items, resume at 512, by default).
    package init(wire: Wire, revision: SocketProtocolRevision, backlog: InboundBacklog = InboundBacklog()) {
        self.wire = wire
        var decoder = SocketPacketDecoder(requiresStringEventName: true)
        decoder.revision = revision
        self.reader = SocketPacketReader(decoder: decoder, interleaving: .keepWaiting(limit: Self.maximumWaitingPackets))
        self.backlog = backlog
        self.messagePackDecoder = SocketMessagePackDecoder(requiresStringEventName: true)
    }

    // MARK: What the driver reads

    /// The manager's status (upstream's `SocketManager.status`; kept only here).
    package var status: ConnectionStatus { self.reconnect.status }
    /// `true` from the first try until an open, the tries' end or a user disconnect.
    package var isReconnecting: Bool { self.reconnect.isReconnecting }
    /// Whether reading is paused over the queued work now.
    package var readingPaused: Bool { self.backlog.readingPaused }
    /// The queued work: the most items that ever waited at once, and those waiting now.
    package var backlogPeak: Int { self.backlog.peak }
    package var backlogPending: Int { self.backlog.pending }
    /// The packets waiting for attachments, oldest first, each with those it has.
    package var waitingPackets: [(packet: SocketPacket, attachments: [[UInt8]])] { self.reader.waitingPackets }

    /// Whether ``connectRequested()`` would connect now, without changing anything (the
    /// driver asks before it makes an engine outside its critical section).
    package var wouldConnect: Bool {
        var probe = self.reconnect
        return probe.connectRequested()
    }

    // MARK: Settings

    /// The protocol revision the text decoder reads (the manager's `.version`).
    package mutating func setRevision(_ revision: SocketProtocolRevision) {
        self.reader.decoder.revision = revision
    }

    /// Replaces the waiting packets (upstream's settable `waitingPackets`); see
    /// ``SocketPacketReader/replaceWaitingPackets(with:)``.
    package mutating func replaceWaitingPackets(with packets: [(packet: SocketPacket, attachments: [[UInt8]])]) {
        self.reader.replaceWaitingPackets(with: packets)
    }

    // MARK: Inputs: the engine's messages

    /// A text message (the Socket.IO packet, without Engine.IO's `4`).
    /// - Returns: the packet to deliver, what was wrong with it, or `nil` while the packet
    ///   waits for its attachments.
    package mutating func receive(text: String) -> Action? {
        self.receive(text: Substring(text))
    }

    /// A text message that is part of a string (the engine's message after its `4`), decoded
    /// in place; otherwise as the `String` form.
    package mutating func receive(text: Substring) -> Action? {
        guard self.wire == .json else { return .textIgnored(bytes: text.utf8.count) }
        do {
            return try self.reader.receive(text: text).map(self.deliver)
        } catch {
            return .rejected(error)
        }
    }

    /// A binary message: the next attachment, or with ``Wire/messagePack`` one whole packet.
    package mutating func receive(binary: [UInt8]) -> Action? {
        do {
            switch self.wire {
            case .json: return try self.reader.receive(binary: binary).map(self.deliver)
            case .messagePack: return self.deliver(try self.messagePackDecoder.decode(binary))
            }
        } catch {
            return .rejected(error)
        }
    }

    /// An attachment given by the app (upstream's public `parseBinaryData`), whatever the wire.
    /// - Returns: the packet once complete.
    package mutating func attach(_ binary: [UInt8]) throws(SocketProtocolError) -> SocketPacket? {
        try self.reader.receive(binary: binary)
    }

    private func deliver(_ packet: SocketPacket) -> Action {
        .deliver(packet, direct: self.backlog.pending == 0)
    }

    /// One item of work was queued on `handleQueue` (a packet's handlers, an engine report).
    /// - Returns: ``Action/pauseReading`` when it reached the bound.
    package mutating func workQueued() -> Action? {
        Self.action(self.backlog.queued())
    }

    /// One queued item ran.
    /// - Returns: ``Action/resumeReading`` when reading was paused and the queue is down.
    package mutating func workRan() -> Action? {
        Self.action(self.backlog.ran())
    }

    /// A stream of the async API fell behind its bound (`true`) or caught up (`false`)
    /// (``InboundBacklog/consumerFellBehind()``).
    /// - Returns: ``Action/pauseReading`` or ``Action/resumeReading`` when reading changes.
    package mutating func consumer(behind: Bool) -> Action? {
        Self.action(behind ? self.backlog.consumerFellBehind() : self.backlog.consumerCaughtUp())
    }

    /// A stream fell far behind (`true`: its hard bound) or no longer is (`false`)
    /// (``InboundBacklog/consumerFellFarBehind()``).
    /// - Returns: ``Action/pauseReading`` or ``Action/resumeReading`` when reading changes.
    package mutating func consumer(farBehind: Bool) -> Action? {
        Self.action(farBehind ? self.backlog.consumerFellFarBehind() : self.backlog.consumerNoLongerFarBehind())
    }

    /// An awaited ack was asked for (`true`) or settled (`false`)
    /// (``InboundBacklog/ackAwaited()``).
    /// - Returns: ``Action/pauseReading`` or ``Action/resumeReading`` when reading changes.
    package mutating func ack(awaited: Bool) -> Action? {
        Self.action(awaited ? self.backlog.ackAwaited() : self.backlog.ackSettled())
    }

    private static func action(_ change: InboundBacklog.Change?) -> Action? {
        switch change {
        case .pauseReading?: .pauseReading
        case .resumeReading?: .resumeReading
        case nil: nil
        }
    }

    // MARK: Inputs: the manager's entry points

    /// `connect()`: the status becomes `connecting`, unless connected or a first connect is
    /// under way (a reconnect try under way does not hold a new connect back, as upstream).
    /// - Returns: `true` when the manager connects.
    package mutating func connectRequested() -> Bool {
        self.reconnect.connectRequested()
    }

    /// `disconnect()`: the status becomes `disconnected`; no further try is made.
    package mutating func disconnectRequested() {
        self.reconnect.disconnectRequested()
    }

    // MARK: Inputs: the transport and the retry timers

    /// The engine closed: partial binary packets end with it (upstream clears
    /// `waitingPackets`). Fed as soon as the engine reports it; the reconnection's decision
    /// (``transportClosed(now:reconnection:random:)``) follows in order with the handlers.
    package mutating func engineClosed() {
        self.reader.reset()
    }

    /// The engine's close reached the manager's handlers: reconnect or disconnect.
    /// - Parameters:
    ///   - now: the timer source's time, which a try's deadline counts from.
    ///   - random: uniform in `0..<1`, the jitter of the first try's delay.
    package mutating func transportClosed(now: MonotonicInstant, reconnection: Reconnection, random: Double) -> [Action] {
        self.apply(reconnection)
        return self.actions(self.reconnect.transportClosed(reconnects: reconnection.reconnects, random: random), now: now)
    }

    /// A try's timer fired: the next try, unless the manager stopped reconnecting or the
    /// timer is stale.
    package mutating func retryTimerFired(_ timer: Int, now: MonotonicInstant, reconnection: Reconnection, random: Double) -> [Action] {
        self.apply(reconnection)
        return self.actions(
            self.reconnect.retryTimerFired(timer, reconnects: reconnection.reconnects, random: random), now: now)
    }

    /// The engine opened: the status becomes `connected` and the namespaces rejoin.
    package mutating func transportOpened() -> [Action] {
        self.actions(self.reconnect.transportOpened(), now: nil)
    }

    private mutating func apply(_ reconnection: Reconnection) {
        self.reconnect.backoff.reconnectWait = reconnection.wait
        self.reconnect.backoff.reconnectWaitMax = reconnection.waitMax
        self.reconnect.backoff.randomizationFactor = reconnection.randomizationFactor
        self.reconnect.backoff.reconnectAttempts = reconnection.attempts
    }

    /// The reconnect machine's actions, its timers as deadlines from `now`.
    private func actions(_ actions: [ReconnectStateMachine.Action], now: MonotonicInstant?) -> [Action] {
        var result: [Action] = []
        result.reserveCapacity(actions.count + 1)
        for action in actions {
            switch action {
            case .disconnect: result.append(.disconnect)
            case .beginReconnecting: result.append(.beginReconnecting)
            case .giveUp: result.append(.giveUp)
            case .rejoin: result.append(.rejoin)
            case .attempt(let eventValue, let retryAfter, let timer):
                result.append(.attempt(eventValue: eventValue))
                // A try is only ever made by an input that has the time.
                if let now { result.append(.armRetryTimer(at: now + retryAfter, timer: timer)) }
            }
        }
        return result
    }
}
