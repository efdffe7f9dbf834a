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
    private struct State {
        var paused = false
        var waiters = WaitList<Void>()
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
        let waiters = self.state.withLock { state in
            state.paused = false
            return state.waiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at once while open; otherwise suspends until ``resume()`` or until the task is
    /// cancelled (the caller checks `Task.isCancelled` after).
    package func waitUntilOpen() async {
        // Checked here first: while open, no nested async call (each costs the task a
        // `swift_task_switch`, which takes its executor-preference lock, on every read).
        guard self.isPaused else { return }
        await self.state.suspend(on: \.waiters, cancelled: ()) { $0.paused ? nil : () }
    }
}
