import Dispatch
package import EngineIOClient
package import EngineIOProtocol
import Foundation
import RealtimeSync
import RealtimeTime
import SocketIOProtocol

/// The acks this socket's emits wait for: a `SocketIOProtocol.AckTable` under the socket's
/// lock, and one scheduled wake-up for the table's earliest deadline.
///
/// socket.io-protocol v5, "Acknowledgement": an EVENT with an id expects an ACK with the same
/// id. Ids count from 0. A timed-out ack is called with upstream's `["NO ACK"]` on the
/// manager's `handleQueue`.
extension SocketIOClient {
    /// What an ack entry holds: upstream's callback (called on `handleQueue`) or an awaiting
    /// operation of `SocketIOConcurrency` (called at once, from whichever thread settles it).
    enum PendingAck {
        case callback(AckCallback)
        case waiter((AckWaiterOutcome) -> Void)
        /// A try of the retry queue's emit `sequence` (see `SocketIOClient+Retries.swift`).
        case queued(Int)
    }

    /// The items of an ack, in the form they arrived in.
    package enum AckItems {
        /// From the network: as the protocol layer decoded them (binary attachments in place).
        case values([JSONValue])
        /// From a caller of the public `handleAck(_:data:)`.
        case items([Any])
    }

    /// How an awaited ack ends.
    package enum AckWaiterOutcome {
        /// The server acknowledged with these items.
        case ack(AckItems)
        /// The deadline passed first.
        case timedOut
        /// The socket disconnected first (upstream's reason string).
        case disconnected(reason: String)
    }

    /// Registers `callback` under a new ack id; after `seconds` (0: never) it is called with
    /// `["NO ACK"]` unless an ack or ``cancelAck(_:)`` removed it first.
    ///
    /// - Returns: the ack id to send with the EVENT.
    func registerAck(timeout seconds: Double, callback: @escaping AckCallback) -> Int {
        self.registerAck(timeout: seconds, .callback(callback))
    }

    func registerAck(timeout seconds: Double, _ pending: PendingAck) -> Int {
        let now = self.timers.now
        let deadline: MonotonicInstant? =
            seconds > 0 && seconds.isFinite
            ? now + .seconds(seconds)
            : nil
        let id = self.state.withLock { $0.acks.register(pending, deadline: deadline) }
        if deadline != nil {
            self.rescheduleAckTimer()
        }
        return id
    }

    /// Removes and returns what waits for `id` (`nil` when unknown, acked or expired).
    func resolveAck(_ id: Int) -> PendingAck? {
        let (pending, reschedule) = self.state.withLock { state -> (PendingAck?, Bool) in
            let pending = state.acks.resolve(id: id)
            return (pending, pending != nil && state.ackTimer != nil)
        }
        if reschedule {
            self.rescheduleAckTimer()
        }
        return pending
    }

    /// What the network path does with an ACK for `id`.
    enum NetworkAckResolution {
        /// An awaiting operation waited: resolved, to be called now, on the caller's thread.
        case waiter((AckWaiterOutcome) -> Void)
        /// An upstream callback waited: resolved, to be called on `handleQueue`.
        case callback(AckCallback)
        /// A try of the retry queue's emit `sequence`: hand the ack to the queue.
        case queued(Int)
        /// Nothing to do: unknown, late or duplicate id, or the socket is not connected.
        case none
    }

    /// The network path's ``resolveAck(_:)`` (with `handleAck`'s check that the socket is
    /// connected), on the thread that read the ACK.
    func resolveNetworkAck(_ id: Int) -> NetworkAckResolution {
        let (resolution, reschedule) = self.state.withLock { state -> (NetworkAckResolution, Bool) in
            guard state.namespace.status == .connected else { return (.none, false) }
            switch state.acks.resolve(id: id) {
            case .waiter(let waiter)?: return (.waiter(waiter), state.ackTimer != nil)
            case .callback(let callback)?: return (.callback(callback), state.ackTimer != nil)
            case .queued(let sequence)?: return (.queued(sequence), state.ackTimer != nil)
            case nil: return (.none, false)
            }
        }
        if reschedule {
            self.rescheduleAckTimer()
        }
        return resolution
    }

    /// Forgets the ack `id` waits for: its callback is never called, and no timer is left
    /// for it. Used by `SocketIOConcurrency` when the awaiting task is cancelled.
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
        self.state.withLock { $0.acks.count }
    }

    /// The id the next ack registered on this socket gets (for tests that answer acks
    /// themselves: an emit cancelled before it was sent registers none).
    package var nextAckID: Int {
        self.state.withLock { $0.acks.peekNextID }
    }

    /// `true` while a wake-up is scheduled for an ack deadline (for tests).
    package var hasAckTimer: Bool {
        self.state.withLock { $0.ackTimer != nil }
    }

    /// The manager's timer source (the default one for a manager of another kind): the ack
    /// deadlines, the connect timeout and SocketIOConcurrency's operation timeouts.
    package var timers: any SocketTimerSource {
        (self.manager as? SocketManager)?.timers ?? EventLoopTimerSource.shared
    }

    /// Settles every entry whose deadline passed, then schedules the next wake-up: waiters at
    /// once, callbacks with `["NO ACK"]` on the manager's `handleQueue`.
    ///
    /// - Parameter generation: the ``State/ackTimerGeneration`` the firing timer was armed
    ///   under: only the current timer clears ``State/ackTimer`` (a replaced timer that fires
    ///   anyway still expires what is due, but leaves the current one in place).
    private func expireAcks(generation: Int) {
        let now = self.timers.now
        let expired = self.state.withLock { state -> [AckTable<PendingAck>.Entry] in
            if state.ackTimerGeneration == generation { state.ackTimer = nil }
            return state.acks.expire(now: now)
        }
        self.rescheduleAckTimer()
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
    /// waiting for their timeout, as upstream's do).
    func failAckWaiters(reason: String) {
        let waiters = self.state.withLock { state -> [AckTable<PendingAck>.Entry] in
            state.acks.remove(where: { if case .waiter = $0 { true } else { false } })
        }
        guard !waiters.isEmpty else { return }
        self.rescheduleAckTimer()
        for entry in waiters {
            if case .waiter(let waiter) = entry.pending { waiter(.disconnected(reason: reason)) }
        }
    }

    /// Keeps exactly one wake-up, at the table's earliest deadline (none when nothing waits
    /// with a deadline), from the manager's timer source.
    ///
    /// The timer is armed outside the lock (a timer source may take its own lock or run the
    /// body soon on another thread), so the decision and the handle change are two critical
    /// sections tied by ``State/ackTimerGeneration``:
    /// 1. decide: if ``State/ackTimer`` already matches the table's next deadline, keep it;
    ///    otherwise take the old handle out, bump the generation (this call now owns the
    ///    timer slot) and arm outside the lock;
    /// 2. install: only if the generation is still ours *and* the table still wants that
    ///    deadline. If a newer call bumped the generation, it owns the slot and finishes the
    ///    job; if the table changed meanwhile (an ack resolved or expired while
    ///    ``State/ackTimer`` was `nil`, so that path saw no timer to reschedule), decide again.
    ///
    /// So whoever holds the latest generation keeps going until ``State/ackTimer`` matches
    /// the table, and once it is installed every table change sees it and reschedules.
    func rescheduleAckTimer() {
        let timers = self.timers
        enum Plan {
            case keep
            case replace(stale: SocketTimer?, fresh: MonotonicInstant?, generation: Int)
        }
        while true {
            let plan = self.state.withLock { state -> Plan in
                let wanted = state.acks.nextDeadline
                guard wanted != state.ackTimer?.deadline else { return .keep }
                let stale = state.ackTimer?.timer
                state.ackTimer = nil
                state.ackTimerGeneration &+= 1
                return .replace(stale: stale, fresh: wanted, generation: state.ackTimerGeneration)
            }
            guard case .replace(let stale, let fresh, let generation) = plan else { return }
            stale?.cancel()
            guard let fresh else { return }
            let timer = timers.schedule(at: fresh) { [weak self] in self?.expireAcks(generation: generation) }
            enum Install { case kept, superseded, retry }
            let installed = self.state.withLock { state -> Install in
                // A newer reschedule owns the slot: it arms (or clears) the timer itself.
                guard state.ackTimerGeneration == generation else { return .superseded }
                // The table moved while the timer was armed: decide again.
                guard state.acks.nextDeadline == fresh else { return .retry }
                state.ackTimer = (fresh, timer)
                return .kept
            }
            switch installed {
            case .kept: return
            case .superseded:
                timer.cancel()
                return
            case .retry: timer.cancel()
            }
        }
    }
}
