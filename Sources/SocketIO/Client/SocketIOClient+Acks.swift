import Dispatch
package import EngineIOClient
import EngineIOProtocol
import Foundation
import RealtimeSync
import RealtimeTime
package import SocketIOProtocol

/// The acks this socket's emits wait for: a `SocketIOProtocol.AckTable` under the socket's
/// lock, and one scheduled wake-up no later than the table's earliest deadline.
///
/// The wake-up is lazy (`AckTable`): an answered or cancelled ack leaves it armed, and it
/// fires once at its deadline, finding nothing due, instead of one schedule and one cancel
/// per acknowledged emit.
///
/// socket.io-protocol v5, "Acknowledgement": an EVENT with an id expects an ACK with the same
/// id. Ids count from 0. A timed-out ack is called with upstream's `["NO ACK"]` on the
/// manager's `handleQueue`.
extension SocketIOClient {
    /// What an ack entry holds (`SocketIOProtocol.PendingAck`): upstream's callback (called
    /// on `handleQueue`), an awaiting operation of `SocketIOConcurrency` (called at once, from
    /// whichever thread settles it) or a try of the retry queue.
    typealias PendingAck = SocketIOProtocol.PendingAck

    /// The items of an ack, in the form they arrived in.
    package typealias AckItems = SocketIOProtocol.AckItems

    /// How an awaited ack ends.
    package typealias AckWaiterOutcome = SocketIOProtocol.AckWaiterOutcome

    /// The socket's session machine: its pending acks, its kept emits and their completions.
    typealias Session = NamespaceSessionMachine
    /// What the session machine asks the socket to do.
    typealias SessionAction = NamespaceSessionAction

    /// Registers `callback` under a new ack id; after `seconds` (0: never) it is called with
    /// `["NO ACK"]` unless an ack or ``cancelAck(_:)`` removed it first.
    ///
    /// - Returns: the ack id to send with the EVENT.
    func registerAck(timeout seconds: Double, callback: @escaping AckCallback) -> Int {
        self.registerAck(timeout: seconds, .callback(callback))
    }

    func registerAck(timeout seconds: Double, _ pending: PendingAck) -> Int {
        let timers = self.core.timers
        let deadline = Session.ackDeadline(afterSeconds: seconds, now: timers.now)
        return self.state.withLock { state in
            let (id, ackTimer) = state.session.registerAck(pending, deadline: deadline)
            self.apply(ackTimer, to: &state, timers: timers)
            return id
        }
    }

    /// Removes and returns what waits for `id` (`nil` when unknown, acked or expired). The ack
    /// wake-up stays armed.
    func resolveAck(_ id: Int) -> PendingAck? {
        self.state.withLock { $0.session.resolveAck(id) }
    }

    /// Settles what waited for the network ACK `ack`, resolved where it arrived: a waiter or a
    /// retry's try on this thread, a callback here too (the caller is on `handleQueue`).
    func settle(_ pending: PendingAck, with ack: SocketIOProtocol.SocketPacket) {
        let arguments = ack.arguments
        switch pending {
        case .callback(let callback):
            DefaultSocketLogger.Logger.log("Handling ack: \(ack.ackID ?? -1)", type: self.logType)
            callback(SocketValueConversion.items(from: arguments))
        case .waiter(let waiter):
            waiter(.ack(.values(arguments)))
        case .queued(let sequence):
            self.retryAcknowledged(sequence: sequence, items: .values(arguments))
        }
    }

    /// Forgets the ack `id` waits for: its entry and callback go, and the callback is never
    /// called. The socket's one ack wake-up is not cancelled: if it was armed for this ack, it
    /// fires once at the deadline and finds nothing. Used by `SocketIOConcurrency` when the
    /// awaiting task is cancelled.
    ///
    /// - Important: Safe from any thread; an unknown or already answered id is ignored.
    package func cancelAck(_ id: Int) {
        // A negative id is a retry queue ticket (`enqueueRetried`): the emit leaves the queue.
        if let sequence = Self.sequence(forTicket: id) {
            self.cancelRetried(sequence: sequence)
            return
        }
        _ = self.resolveAck(id)
    }

    /// How many acks are waiting (for tests).
    package var pendingAckCount: Int {
        self.state.withLock { $0.session.acks.count }
    }

    /// The id the next ack registered on this socket gets (for tests that answer acks
    /// themselves: an emit cancelled before it was sent registers none).
    package var nextAckID: Int {
        self.state.withLock { $0.session.acks.peekNextID }
    }

    /// `true` while a wake-up is scheduled for an ack deadline (for tests). It may outlive the
    /// ack it was armed for (until it fires), but not a disconnect that left no deadline.
    package var hasAckTimer: Bool {
        self.state.withLock { $0.ackTimer != nil }
    }

    /// The session's timer source (the core's): the ack deadlines, the connect timeout and
    /// SocketIOConcurrency's operation timeouts.
    package var timers: any SocketTimerSource {
        self.core.timers
    }

    /// Applies a change the session machine asked of the ack wake-up
    /// (`AckTable.WakeUpChange`), inside the critical section of the input that asked: the one
    /// timer is cancelled, armed or kept there, so it always matches the table's armed
    /// wake-up. Its body tells the table which deadline it was armed for, so a replaced timer
    /// that fires late is told apart from the current one.
    ///
    /// Arming under the socket's lock is safe because a timer source never calls back from
    /// `schedule` or `cancel`: each takes only its own lock (the event loop's, a leaf), and a
    /// timer's body runs later on the source's thread, where it takes the socket's lock
    /// like any other caller.
    ///
    /// - Parameter timers: the manager's timer source, when the caller has it already.
    func apply(_ change: Session.AckWakeUp?, to state: inout State, timers: (any SocketTimerSource)? = nil) {
        guard let change else { return }
        state.ackTimer?.cancel()
        state.ackTimer = nil
        guard case .arm(let deadline) = change else { return }
        let source = timers ?? self.core.timers
        state.ackTimer = source.schedule(at: deadline) { [weak self] in self?.expireAcks(armedFor: deadline) }
    }

    /// The wake-up armed for `deadline` fired: settles every entry whose deadline passed and
    /// arms the wake-up for the next one (none when nothing with a deadline waits): waiters at
    /// once, callbacks with `["NO ACK"]` on the manager's `handleQueue`. A wake-up armed for an
    /// ack that was answered since finds nothing due.
    ///
    /// A wake-up replaced after it fired (its cancel came too late) runs this too: it takes
    /// only what is due, and the table keeps the current wake-up.
    private func expireAcks(armedFor deadline: MonotonicInstant) {
        let timers = self.core.timers
        let now = timers.now
        let expired = self.state.withLock { state -> [AckTable<PendingAck>.Entry] in
            let (expired, ackTimer) = state.session.acksExpired(now: now, firedWakeUp: deadline)
            self.apply(ackTimer, to: &state, timers: timers)
            return expired
        }
        var callbacks: [AckCallback] = []
        for entry in expired {
            switch entry.pending {
            case .callback(let callback): callbacks.append(callback)
            case .waiter(let waiter): waiter(.timedOut)
            case .queued(let sequence): self.retryTimedOut(sequence: sequence)
            }
        }
        guard !callbacks.isEmpty else { return }
        let box = UncheckedSendable(callbacks)
        (self.manager?.handleQueue ?? DispatchQueue.global()).async {
            for callback in box.value {
                callback([SocketAckStatus.noAck.rawValue])
            }
        }
    }

    /// Ends the waits of awaiting operations when the socket disconnects (callbacks keep
    /// waiting for their timeout, as upstream's do). When nothing left waits with a deadline,
    /// the ack wake-up is cancelled in the same section, before a waiter resumes: a
    /// disconnected socket keeps no timer it does not need.
    func failAckWaiters(reason: String) {
        let waiters = self.state.withLock { state -> [AckTable<PendingAck>.Entry] in
            let (waiters, ackTimer) = state.session.removeAcksAtDisconnect(where: { if case .waiter = $0 { true } else { false } })
            self.apply(ackTimer, to: &state)
            return waiters
        }
        for entry in waiters {
            if case .waiter(let waiter) = entry.pending { waiter(.disconnected(reason: reason)) }
        }
    }
}
