import RealtimeSync

/// A FIFO lock for async code: one holder at a time, waiters suspend (never block a thread).
///
/// Used by ``WebSocketFrameWriter`` so that user sends, automatic pongs and close frames
/// never interleave their bytes on the wire.
///
/// - Important: Waiting is not cancellable; a holder must always call ``unlock()``.
package final class AsyncSerialLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    package init() {}

    /// Suspends until the lock is ours.
    package func lock() async {
        let acquired = self.state.withLock { state -> Bool in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquiredNow = self.state.withLock { state -> Bool in
                guard state.locked else {
                    state.locked = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if acquiredNow { continuation.resume() }
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
        let next = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
