import RealtimeSync

/// A FIFO lock for async code: one holder at a time, waiters suspend (never block a thread).
///
/// Used by ``WebSocketFrameWriter`` so that user sends, automatic pongs and close frames
/// never interleave their bytes on the wire.
///
/// ```swift
/// try await lock.lock()
/// defer { lock.unlock() }
/// try await stream.write(frame)
/// ```
///
/// - Important: Every wait is cancellable. A task cancelled while it waits leaves the wait
///   list (the other waiters keep their order) and ``lock()`` throws `CancellationError`
///   without taking the lock. When the lock is handed to a waiter whose task is cancelled at
///   the same moment, that waiter passes it on to the next one (or frees it) before throwing:
///   a handed-over lock is never lost. A free lock is taken without waiting even by a
///   cancelled task (nothing to cancel). A holder must always call ``unlock()``.
package final class AsyncSerialLock: Sendable {
    private struct State {
        var locked = false
        /// Waiting tasks, longest first, resumed with `true` when the lock is handed to them.
        /// One per suspended caller of ``lock()``: the callers' own tasks bound it (each waits
        /// with what it wants to send: backpressure).
        var waiters = WaitList<Bool>()
    }

    private let state = LockedValue(State())

    package init() {}

    /// Suspends until the lock is ours.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits; the lock is
    ///   then not held.
    package func lock() async throws(CancellationError) {
        // A free lock is taken at once, even by a cancelled task (nothing to cancel).
        if self.tryLock() { return }
        let granted = await self.state.suspend(on: \.waiters, cancelled: false) { state in
            guard !state.locked else { return nil }
            state.locked = true
            return true
        }
        guard granted else { throw CancellationError() }
        // Handed over while the task was being cancelled: pass it on rather than keep a lock
        // the caller will not use.
        if Task.isCancelled {
            self.unlock()
            throw CancellationError()
        }
    }

    /// Takes the lock if it is free; never waits.
    /// - Returns: `true` when the lock is now the caller's.
    package func tryLock() -> Bool {
        self.state.withLock { state -> Bool in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
    }

    /// Hands the lock to the longest waiter, or frees it.
    package func unlock() {
        let next = self.state.withLock { state -> UnsafeContinuation<Bool, Never>? in
            assert(state.locked, "AsyncSerialLock.unlock() without the lock held")
            guard let next = state.waiters.takeFirst() else {
                state.locked = false
                return nil
            }
            return next
        }
        next?.resume(returning: true)
    }

    /// How many tasks wait for the lock now (for tests).
    var waiterCount: Int { self.state.withLock { $0.waiters.count } }
}
