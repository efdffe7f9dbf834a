import RealtimeSync

extension TimerSource {
    /// Suspends the task until `deadline` on this source's clock, without blocking a thread.
    ///
    /// The wait is one timer of the source (``scheduleWakeUp(at:_:)``) and one continuation,
    /// resumed exactly once: by the timer, or by the task's cancellation, which ends the wait at
    /// once and cancels the timer. A deadline already past returns at once. A source that stops
    /// for good (an event loop shut down) ends the wait early, without an error: the caller then
    /// meets the stop in its next operation on that loop instead of waiting forever.
    ///
    /// ```swift
    /// try await eventLoop.sleep(until: started + .milliseconds(250))
    /// ```
    ///
    /// - Throws: `CancellationError` if the task is cancelled before or during the wait (and
    ///   the deadline's timer did not fire first).
    package nonisolated(nonsending) func sleep(until deadline: MonotonicInstant) async throws(CancellationError) {
        if Task.isCancelled { throw CancellationError() }
        if deadline <= self.now { return }
        let wait = TimerWait()
        let fired = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                guard wait.park(continuation) else {
                    continuation.resume(returning: false)
                    return
                }
                let timer = self.scheduleWakeUp(at: deadline) { wait.end(fired: true) }
                wait.keep(timer)
            }
        } onCancel: {
            wait.end(fired: false)
        }
        if !fired { throw CancellationError() }
    }

    /// Suspends the task for `amount` (from ``now``); at once for zero or less.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before or during the wait.
    package nonisolated(nonsending) func sleep(for amount: TimeAmount) async throws(CancellationError) {
        try await self.sleep(until: self.now + amount)
    }
}

/// One ``TimerSource/sleep(until:)``: its continuation and timer under one lock, so the timer
/// and the cancellation handler race to end it and exactly one of them resumes the task.
private final class TimerWait: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var timer: TimerHandle?
        /// The timer fired or the task was cancelled: nothing may be parked or kept any more.
        var ended = false
    }

    private let state = LockedValue(State())

    /// Parks the task's continuation; `false` when the wait already ended (the task was
    /// cancelled before it got here), and then the caller resumes it.
    func park(_ continuation: CheckedContinuation<Bool, Never>) -> Bool {
        self.state.withLock { state -> Bool in
            if state.ended { return false }
            state.continuation = continuation
            return true
        }
    }

    /// Keeps the wait's timer so a cancellation can cancel it; cancels it at once when the wait
    /// ended while it was being scheduled (a no-op for a timer that fired).
    func keep(_ timer: TimerHandle) {
        let cancelNow = self.state.withLock { state -> Bool in
            if state.ended { return true }
            state.timer = timer
            return false
        }
        if cancelNow { timer.cancel() }
    }

    /// Ends the wait: the timer fired, or the task was cancelled. The first call resumes the
    /// task (after the lock is released) and cancels the timer if it did not fire; later calls
    /// do nothing.
    func end(fired: Bool) {
        let (continuation, timer) = self.state.withLock { state -> (CheckedContinuation<Bool, Never>?, TimerHandle?) in
            state.ended = true
            defer {
                state.continuation = nil
                state.timer = nil
            }
            return (state.continuation, state.timer)
        }
        if !fired { timer?.cancel() }
        continuation?.resume(returning: fired)
    }
}
