import RealtimeSync

/// Holds the engine's network reads back while the manager's `handleQueue` has too much work
/// queued (``InboundBacklog``): the WebSocket receive loop and each long-polling GET pass
/// through ``waitUntilOpen()`` before they read.
///
/// Open, the check costs one lock acquisition. Paused, a reader suspends (it never blocks a
/// thread) until ``resume()`` or until its task is cancelled (the engine closing cancels its
/// tasks). The manager applies its ``InboundBacklog``'s changes under its own lock, so a pause
/// and a resume can never be applied in the wrong order.
package final class EngineReadGate: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: UnsafeContinuation<Void, Never>
    }

    private struct State {
        var paused = false
        var nextWaiterID: UInt64 = 0
        var waiters: [Waiter] = []
    }

    private let state = LockedValue(State())

    package init() {}

    package var isPaused: Bool { self.state.withLock { $0.paused } }

    /// Readers that arrive from now on wait.
    package func pause() {
        self.state.withLock { $0.paused = true }
    }

    /// Lets every waiting reader go, and the ones that arrive from now on.
    package func resume() {
        let waiters = self.state.withLock { state -> [Waiter] in
            state.paused = false
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// Returns at once while open; otherwise suspends until ``resume()`` or until the task is
    /// cancelled (the caller checks `Task.isCancelled` after).
    package func waitUntilOpen() async {
        let id = self.state.withLock { state -> UInt64? in
            guard state.paused else { return nil }
            defer { state.nextWaiterID &+= 1 }
            return state.nextWaiterID
        }
        guard let id else { return }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let goNow = self.state.withLock { state -> Bool in
                    // Checked under the lock: a cancellation after this runs its handler
                    // after the waiter is listed, and the handler takes it out.
                    guard state.paused, !Task.isCancelled else { return true }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
