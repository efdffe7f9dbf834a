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
    private struct Waiter {
        var id: UInt64
        /// Resumed with `true` when the lock was handed to this waiter, `false` when its
        /// task was cancelled before that.
        var continuation: UnsafeContinuation<Bool, Never>
    }

    private struct State {
        var locked = false
        var nextWaiterID: UInt64 = 0
        /// Waiting tasks, longest first. One per suspended caller of ``lock()``: the callers'
        /// own tasks bound it (each waits with what it wants to send: backpressure).
        var waiters: [Waiter] = []
    }

    private let state = LockedValue(State())

    package init() {}

    /// Suspends until the lock is ours.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits; the lock is
    ///   then not held.
    package func lock() async throws(CancellationError) {
        let id = self.state.withLock { state -> UInt64? in
            guard state.locked else {
                state.locked = true
                return nil
            }
            defer { state.nextWaiterID &+= 1 }
            return state.nextWaiterID
        }
        guard let id else { return }
        let granted = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
                enum Start { case granted, cancelled, waiting }
                let start = self.state.withLock { state -> Start in
                    guard state.locked else {
                        state.locked = true
                        return .granted
                    }
                    // Checked under the lock: a cancellation that lands after this check runs
                    // its handler after the waiter is listed, and the handler removes it.
                    if Task.isCancelled { return .cancelled }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .waiting
                }
                switch start {
                case .granted: continuation.resume(returning: true)
                case .cancelled: continuation.resume(returning: false)
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
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
        let next = self.state.withLock { state -> Waiter? in
            assert(state.locked, "AsyncSerialLock.unlock() without the lock held")
            guard !state.waiters.isEmpty else {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }

    /// How many tasks wait for the lock now (for tests).
    var waiterCount: Int { self.state.withLock { $0.waiters.count } }
}
