import Dispatch
import Foundation
import SocketIOProtocol

/// The acks this socket's emits wait for: a `SocketIOProtocol.AckTable` under the socket's
/// lock, and one scheduled wake-up for the table's earliest deadline.
///
/// socket.io-protocol v5, "Acknowledgement": an EVENT with an id expects an ACK with the same
/// id. Ids count from 0. A timed-out ack is called with upstream's `["NO ACK"]` on the
/// manager's `handleQueue`.
extension SocketIOClient {
    /// Registers `callback` under a new ack id; after `seconds` (0: never) it is called with
    /// `["NO ACK"]` unless an ack or ``cancelAck(_:)`` removed it first.
    ///
    /// - Returns: the ack id to send with the EVENT.
    func registerAck(timeout seconds: Double, callback: @escaping AckCallback) -> Int {
        let deadline: ContinuousClock.Instant? = seconds > 0 && seconds.isFinite
            ? ContinuousClock.now + .seconds(seconds)
            : nil
        let id = self.state.withLock { $0.acks.register(callback, deadline: deadline) }
        self.rescheduleAckTimer()
        return id
    }

    /// Removes and returns the callback waiting for `id` (`nil` when unknown, acked or expired).
    func resolveAck(_ id: Int) -> AckCallback? {
        let callback = self.state.withLock { $0.acks.resolve(id: id) }
        if callback != nil {
            self.rescheduleAckTimer()
        }
        return callback
    }

    /// Forgets the ack `id` waits for: its callback is never called, and no timer is left
    /// for it. Used by `SocketIOConcurrency` when the awaiting task is cancelled.
    ///
    /// - Important: Safe from any thread; an unknown or already answered id is ignored.
    package func cancelAck(_ id: Int) {
        _ = self.resolveAck(id)
    }

    /// How many acks are waiting (for tests).
    package var pendingAckCount: Int {
        self.state.withLock { $0.acks.count }
    }

    /// `true` while a wake-up is scheduled for an ack deadline (for tests).
    package var hasAckTimer: Bool {
        self.state.withLock { $0.ackTimer != nil }
    }

    /// Calls every callback whose deadline passed with `["NO ACK"]`, then schedules the next
    /// wake-up.
    private func expireAcks() {
        let expired = self.state.withLock { state -> [AckTable<AckCallback>.Entry] in
            state.ackTimer = nil
            return state.acks.expire(now: .now)
        }
        self.rescheduleAckTimer()
        for entry in expired {
            entry.pending([SocketAckStatus.noAck.rawValue])
        }
    }

    /// Keeps exactly one wake-up, at the table's earliest deadline (none when nothing waits
    /// with a deadline), on the manager's `handleQueue`.
    private func rescheduleAckTimer() {
        let queue = self.manager?.handleQueue ?? DispatchQueue.global()
        let (stale, fresh) = self.state.withLock { state -> (DispatchWorkItem?, (ContinuousClock.Instant, DispatchWorkItem)?) in
            let wanted = state.acks.nextDeadline
            guard wanted != state.ackTimer?.deadline else { return (nil, nil) }
            let stale = state.ackTimer?.item
            state.ackTimer = nil
            guard let wanted else { return (stale, nil) }
            let item = DispatchWorkItem { [weak self] in self?.expireAcks() }
            state.ackTimer = (wanted, item)
            return (stale, (wanted, item))
        }
        stale?.cancel()
        if let (deadline, item) = fresh {
            let delay = ContinuousClock.now.duration(to: deadline)
            let nanoseconds = max(0, delay.components.seconds) * 1_000_000_000
                + max(0, delay.components.attoseconds / 1_000_000_000)
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)), execute: item)
        }
    }
}
