import EngineIOProtocol
import RealtimeTime
import Testing

@testable import SocketIOProtocol

/// One socket's session machine with no I/O: an emit registers its ack, checks the status and
/// keeps or refuses itself in one input; a kept emit's completion comes back with it; an ACK is
/// resolved where it arrives; and every change to the ack deadlines comes out as the change to
/// the owner's one wake-up, from the `now` the input carried.
@Suite struct NamespaceSessionMachineTests {
    typealias Session = NamespaceSessionMachine
    static let start = MonotonicInstant(nanosecondsSinceOrigin: 1_000_000_000)
    let decoder = SocketPacketDecoder()

    /// An action as the tests compare it: a pending ack by its retry sequence (the tests
    /// register `.queued(n)` markers), a kept emit without its completion (run to see it).
    enum Seen: Equatable {
        case send(SocketPacket)
        case sendKept(SocketPacket)
        case discardKept(count: Int)
        case requestAuth(Int)
        case connected(String)
        case deliverEvent(SocketPacket)
        case deliverAck(SocketPacket)
        case ackResolved(Int?, SocketPacket)
        case connectError(String)
        case reconnecting
        case disconnected(NamespaceDisconnectReason)
    }

    func seen(_ actions: [NamespaceSessionAction]) -> [Seen] {
        actions.map { action in
            switch action {
            case .send(let packet): .send(packet)
            case .sendKept(let packet, _): .sendKept(packet)
            case .discardKept(let completions): .discardKept(count: completions.count)
            case .requestAuth(let request): .requestAuth(request)
            case .connected(let sid): .connected(sid)
            case .deliverEvent(let packet): .deliverEvent(packet)
            case .deliverAck(let packet): .deliverAck(packet)
            case .ackResolved(let pending, let packet): .ackResolved(pending.queuedSequence, packet)
            case .connectError(let message, _): .connectError(message)
            case .reconnecting: .reconnecting
            case .disconnected(let reason): .disconnected(reason)
            }
        }
    }

    /// What the completions handed back wrote, in the order they ran.
    final class Log {
        var lines: [String] = []
        func completion(_ line: String) -> () -> Void { { self.lines.append(line) } }
    }

    func packet(_ text: String) throws -> SocketPacket {
        try self.decoder.decode(text)
    }

    func event(_ name: String, ackID: Int? = nil) -> SocketPacket {
        SocketPacket(type: .event, ackID: ackID, data: [.string(name)])
    }

    /// A session joining `/` over an open transport (CONNECT sent), keeping up to
    /// `sendBuffer` emits until the acknowledgement.
    func connecting(sendBuffer: Int) -> Session {
        var session = Session(namespace: "/")
        session.connection.maximumSendBuffer = sendBuffer
        _ = session.transportOpened()
        _ = session.connection.startConnecting()
        _ = session.connect(auth: nil)
        return session
    }

    /// A session connected to `/` with sid `S`, reported connected.
    func connected(sendBuffer: Int = 0) throws -> Session {
        var session = Session(namespace: "/")
        session.connection.maximumSendBuffer = sendBuffer
        #expect(self.seen(session.transportOpened()) == [])
        let started = session.connection.startConnecting()
        #expect(started)
        #expect(self.seen(session.connect(auth: nil)) == [.send(SocketPacket(type: .connect))])
        #expect(self.seen(session.receive(try self.packet(#"0{"sid":"S"}"#)).actions) == [.connected("S")])
        #expect(session.reportConnected(sid: "S").map(self.seen) == [])
        return session
    }

    @Test func anAckDeadlineIsFromTheInputsNowAndZeroOrNonFiniteWaitsForever() {
        #expect(Session.ackDeadline(afterSeconds: 2.5, now: Self.start) == Self.start + .milliseconds(2_500))
        for forever in [0, -1, .infinity, .nan] as [Double] {
            #expect(Session.ackDeadline(afterSeconds: forever, now: Self.start) == nil)
        }
    }

    @Test func anEmitWhileConnectedIsSentWithItsAckRegisteredAndTheWakeUpArmed() throws {
        var session = try self.connected()
        let log = Log()
        let deadline = Self.start + .seconds(5)
        var built: [Int?] = []
        let outcome = session.emit(
            {
                built.append($0)
                return self.event("e", ackID: $0)
            }, ack: .register(.queued(10), deadline: deadline),
            completion: log.completion("done"), volatile: false)
        #expect(outcome.decision == .send && outcome.ackID == 0)
        // Not kept: the owner runs the completion once the emit is written.
        outcome.completion?()
        #expect(log.lines == ["done"])
        #expect(outcome.ackTimer == .arm(deadline))
        #expect(built.isEmpty)  // sent now: the owner encodes it, the machine builds nothing
        #expect(session.acks.count == 1)
        // A later deadline leaves the wake-up where it is.
        let later = session.emit(
            { self.event("f", ackID: $0) }, ack: .register(.queued(11), deadline: deadline + .seconds(1)), completion: nil,
            volatile: false)
        #expect(later.ackID == 1 && later.ackTimer == nil)
    }

    /// The awaited acks (`.waiter`) are counted by every input that adds or removes an ack:
    /// the owner adds the counts up to tell the session when the first is asked for and the
    /// last settled, with no input of its own.
    @Test func awaitedAcksAreCountedByEveryInputThatAddsOrRemovesOne() throws {
        var session = try self.connected()
        let waiter = PendingAck.waiter { _ in }
        let deadline = Self.start + .seconds(5)
        func emit(_ pending: PendingAck, deadline: MonotonicInstant? = nil) -> Int? {
            session.emit({ self.event("e", ackID: $0) }, ack: .register(pending, deadline: deadline), completion: nil, volatile: false)
                .ackID
        }
        // Emits: a callback and a retry's try are not awaited.
        let answered = try #require(emit(waiter))
        _ = emit(.callback { _ in })
        let expiring = try #require(emit(waiter, deadline: deadline))
        let cancelled = try #require(emit(waiter))
        _ = emit(.queued(3))
        #expect(session.awaitedAcks == 3)
        // Outside an emit (upstream's registration).
        _ = session.registerAck(waiter, deadline: nil)
        #expect(session.awaitedAcks == 4)
        // Resolved where the ACK arrives, and a duplicate ACK changes nothing.
        for _ in 0..<2 {
            _ = session.receive(SocketPacket(type: .ack, ackID: answered, data: []), resolvingAcks: true)
        }
        #expect(session.awaitedAcks == 3)
        // Expired at its deadline.
        let expired = session.acksExpired(now: deadline, firedWakeUp: deadline).expired
        #expect(expired.map(\.id) == [expiring])
        #expect(session.awaitedAcks == 2)
        // Resolved by its owner (a cancelled wait), and removed by a predicate.
        #expect(session.resolveAck(cancelled)?.isAwaited == true)
        _ = session.removeAcks(where: { $0.queuedSequence == 3 })
        #expect(session.awaitedAcks == 1)
        // At a disconnect the waiters go; the callback keeps waiting.
        _ = session.removeAcksAtDisconnect(where: { $0.isAwaited })
        #expect(session.awaitedAcks == 0)
        #expect(session.acks.count == 1)
    }

    @Test func aRefusedEmitKeepsItsAckAndHandsTheCompletionBack() {
        var session = Session(namespace: "/")
        let log = Log()
        let outcome = session.emit(
            { self.event("e", ackID: $0) }, ack: .register(.queued(7), deadline: nil), completion: log.completion("c"),
            volatile: false)
        // upstream: "Tried emitting when not connected"; the ack waits for its timeout.
        #expect(outcome.decision == .notConnected && outcome.ackID == 0)
        outcome.completion?()
        #expect(log.lines == ["c"])
        #expect(outcome.ackTimer == nil)  // no deadline, no wake-up
        #expect(session.acks.contains(id: 0))
        let volatile = session.emit({ self.event("v", ackID: $0) }, ack: .none, completion: log.completion("v"), volatile: true)
        #expect(volatile.decision == .dropped && volatile.ackID == nil)
        volatile.completion?()
        #expect(log.lines == ["c", "v"])
    }

    @Test func aKeptEmitsCompletionComesBackWithItWhenConnected() throws {
        var session = self.connecting(sendBuffer: 4)
        let log = Log()
        let a = session.emit(
            { self.event("a", ackID: $0) }, ack: .register(.queued(1), deadline: nil), completion: log.completion("doneA"),
            volatile: false)
        let b = session.emit({ self.event("b", ackID: $0) }, ack: .none, completion: nil, volatile: false)
        #expect(a.decision == .buffered && a.completion == nil && a.ackID == 0)
        #expect(b.decision == .buffered)
        let early = try self.packet(#"2["early"]"#)
        #expect(self.seen(session.receive(early).actions) == [])  // held until the acknowledgement
        #expect(self.seen(session.receive(try self.packet(#"0{"sid":"S"}"#)).actions) == [.connected("S")])
        let reported = session.reportConnected(sid: "S")
        let handedOut = try #require(reported)
        #expect(self.seen(handedOut) == [.deliverEvent(early), .sendKept(self.event("a", ackID: 0)), .sendKept(self.event("b"))])
        // Each kept emit carries its own completion (or none).
        for action in handedOut {
            if case .sendKept(_, let completion) = action { completion?() }
        }
        #expect(log.lines == ["doneA"])
        #expect(self.seen(session.sendBufferFlushed()) == [])
        // Each completion is handed out once.
        #expect(session.reportConnected(sid: "S") == nil)
    }

    @Test func keptEmitsLeftBehindHandTheirCompletionsBackInOrder() {
        var session = self.connecting(sendBuffer: 4)
        let log = Log()
        _ = session.emit({ self.event("a", ackID: $0) }, ack: .none, completion: log.completion("a"), volatile: false)
        _ = session.emit({ self.event("b", ackID: $0) }, ack: .none, completion: nil, volatile: false)
        _ = session.emit({ self.event("c", ackID: $0) }, ack: .none, completion: log.completion("c"), volatile: false)
        let actions = session.disconnect()
        // DISCONNECT (CONNECT went out), the socket's disconnect, then the kept emits' fate.
        #expect(
            self.seen(actions) == [.send(SocketPacket(type: .disconnect)), .disconnected(.clientDisconnect), .discardKept(count: 3)])
        if case .discardKept(let completions)? = actions.last {
            #expect(completions.map { $0 == nil } == [false, true, false])
            for completion in completions { completion?() }
        }
        #expect(log.lines == ["a", "c"])
    }

    @Test func anAckIsResolvedWhereItArrivesOnceAndOnlyWhileConnected() throws {
        var session = try self.connected()
        let deadline = Self.start + .seconds(5)
        _ = session.emit({ self.event("e", ackID: $0) }, ack: .register(.queued(0), deadline: deadline), completion: nil, volatile: false)
        let ack = try self.packet(#"30["ok"]"#)
        // The owner's own ack path: handed on unresolved.
        var other = session
        #expect(self.seen(other.receive(ack).actions) == [.deliverAck(ack)])
        #expect(other.acks.count == 1)
        // Resolved in the step that ran the packet; the wake-up stays armed (lazy).
        let step = session.receive(ack, resolvingAcks: true)
        #expect(self.seen(step.actions) == [.ackResolved(0, ack)])
        #expect(session.acks.isEmpty && session.acks.armedWakeUp == deadline)
        // A duplicate (or late) ACK: nothing to do.
        let again = session.receive(ack, resolvingAcks: true)
        #expect(again.actions.isEmpty)
        // Not reported connected (upstream's handleAck ignores it): the entry keeps waiting.
        _ = session.emit({ self.event("f", ackID: $0) }, ack: .register(.queued(1), deadline: nil), completion: nil, volatile: false)
        let reported = session.connection.reportDisconnected()
        #expect(reported)
        #expect(session.receive(try self.packet(#"31["late"]"#), resolvingAcks: true).actions.isEmpty)
        #expect(session.resolveAck(1, ifConnected: true) == nil)
        #expect(session.acks.contains(id: 1))
        #expect(session.resolveAck(1)?.queuedSequence == 1)
        // The wake-up armed for the answered ack fires once and finds nothing: no re-arm; the
        // owner lets go of the fired timer.
        let fired = session.acksExpired(now: deadline, firedWakeUp: deadline)
        #expect(fired.expired.isEmpty && fired.ackTimer == .cancel)
        #expect(session.acks.armedWakeUp == nil)
    }

    @Test func theSameAcksFedWholeOrSplitAcrossTheAcknowledgementResolveTheSame() throws {
        // Whole: the session is connected before the ACKs arrive; resolved where they arrive.
        var whole = try self.connected()
        for sequence in [0, 1] {
            _ = whole.emit(
                { self.event("e\(sequence)", ackID: $0) }, ack: .register(.queued(sequence), deadline: nil), completion: nil,
                volatile: false)
        }
        let acks = [try self.packet(#"31["b"]"#), try self.packet(#"30["a"]"#)]
        let wholeResolved = acks.flatMap { self.seen(whole.receive($0, resolvingAcks: true).actions) }
        #expect(wholeResolved == [.ackResolved(1, acks[0]), .ackResolved(0, acks[1])])

        // Split: the emits are kept while connecting and their ACKs arrive before the CONNECT
        // acknowledgement (a recovering server's replay); held, then handed on in order, and
        // the owner resolves them through the same table.
        var split = self.connecting(sendBuffer: 2)
        for sequence in [0, 1] {
            _ = split.emit(
                { self.event("e\(sequence)", ackID: $0) }, ack: .register(.queued(sequence), deadline: nil), completion: nil,
                volatile: false)
        }
        for ack in acks {
            #expect(split.receive(ack, resolvingAcks: true).actions.isEmpty)
        }
        _ = split.receive(try self.packet(#"0{"sid":"S"}"#))
        let reportedConnected = split.reportConnected(sid: "S")
        let handedOn = try #require(reportedConnected)
        #expect(Array(self.seen(handedOn).prefix(2)) == [.deliverAck(acks[0]), .deliverAck(acks[1])])
        let splitResolved = acks.map { split.resolveAck($0.ackID!, ifConnected: true)?.queuedSequence }
        #expect(splitResolved == [1, 0])
        #expect(split.acks.isEmpty && whole.acks.isEmpty)
    }

    /// The short way an EVENT or ACK takes while connected (no list from the connection
    /// part) does what the connection's own `receive` does, recovery offset included.
    @Test func theShortWayWhileConnectedMatchesTheConnectionsReceive() throws {
        var session = Session(namespace: "/")
        _ = session.transportOpened()
        _ = session.connection.startConnecting()
        _ = session.connect(auth: nil)
        _ = session.receive(try self.packet(#"0{"sid":"S","pid":"P"}"#))
        _ = session.reportConnected(sid: "S")
        let packets = try [#"2["e","off-1"]"#, #"30["a"]"#, #"51-["b",{"_placeholder":true,"num":0}]"#, "1", #"0{"sid":"T"}"#].map {
            try self.packet($0)
        }
        for packet in packets {
            var reference = session.connection
            let expected = reference.receive(packet)
            let actions = session.receive(packet).actions
            #expect(actions.count == expected.count, "\(packet)")
            for (action, wanted) in zip(actions, expected) {
                switch (action, wanted) {
                case (.deliverEvent(let a), .deliverEvent(let b)), (.deliverAck(let a), .deliverAck(let b)): #expect(a == b)
                case (.disconnected(let a), .disconnected(let b)): #expect(a == b)
                default: Issue.record("\(self.seen([action])) for \(wanted)")
                }
            }
            #expect(session.connection.recoveryOffset == reference.recoveryOffset)
        }
        #expect(session.connection.recoveryOffset == "off-1")
        #expect(!session.connection.isConnected)  // the DISCONNECT took the long way
    }

    @Test func expiredAcksLeaveByIdAndTheWakeUpMovesToTheNextDeadline() throws {
        var session = try self.connected()
        let first = Self.start + .seconds(1)
        let second = Self.start + .seconds(3)
        let a = session.emit({ self.event("a", ackID: $0) }, ack: .register(.queued(0), deadline: second), completion: nil, volatile: false)
        let b = session.emit({ self.event("b", ackID: $0) }, ack: .register(.queued(1), deadline: first), completion: nil, volatile: false)
        #expect(a.ackTimer == .arm(second) && b.ackTimer == .arm(first))
        // The replaced wake-up (armed for `second`) fires late: nothing is due, the current
        // one stays.
        let late = session.acksExpired(now: Self.start, firedWakeUp: second)
        #expect(late.expired.isEmpty && late.ackTimer == nil)
        #expect(session.acks.armedWakeUp == first)
        let due = session.acksExpired(now: first, firedWakeUp: first)
        #expect(due.expired.map(\.pending.queuedSequence) == [1])
        #expect(due.ackTimer == .arm(second))
        // An ack removed leaves without moving the wake-up; once nothing with a deadline
        // waits, the disconnect cancels it.
        let removed = session.removeAcks(where: { $0.queuedSequence == 0 })
        #expect(removed.map(\.id) == [0])
        #expect(session.acks.armedWakeUp == second)
        #expect(session.removeAcksAtDisconnect(where: { _ in true }).ackTimer == .cancel)
        #expect(session.acks.armedWakeUp == nil)
        #expect(session.removeAcksAtDisconnect(where: { _ in true }).ackTimer == nil)
    }

    /// A disconnect leaves the wake-up of callbacks that still wait with a deadline.
    @Test func aDisconnectKeepsTheWakeUpWhileADeadlineWaits() throws {
        var session = try self.connected()
        let deadline = Self.start + .seconds(2)
        let emit = session.emit(
            { self.event("a", ackID: $0) }, ack: .register(.queued(0), deadline: deadline), completion: nil, volatile: false)
        #expect(emit.ackTimer == .arm(deadline))
        #expect(session.removeAcksAtDisconnect(where: { _ in false }).ackTimer == nil)
        #expect(session.acks.armedWakeUp == deadline)
    }

    /// A request/response loop: each emit's deadline is later than the last and its ACK comes
    /// back before the next emit. The wake-up is armed once, not armed and cancelled per ack.
    @Test func aSteadyRequestResponseLoopArmsTheWakeUpOnce() throws {
        var session = try self.connected()
        var changes: [Session.AckWakeUp] = []
        for index in 0..<50 {
            let deadline = Self.start + .milliseconds(Int64(index)) + .seconds(5)
            let emit = session.emit(
                { self.event("e", ackID: $0) }, ack: .register(.queued(index), deadline: deadline), completion: nil,
                volatile: false)
            if let change = emit.ackTimer { changes.append(change) }
            let ack = try self.packet("3\(emit.ackID!)[\"ok\"]")
            #expect(self.seen(session.receive(ack, resolvingAcks: true).actions) == [.ackResolved(index, ack)])
        }
        #expect(changes == [.arm(Self.start + .seconds(5))])
        #expect(session.acks.isEmpty)
    }
}
