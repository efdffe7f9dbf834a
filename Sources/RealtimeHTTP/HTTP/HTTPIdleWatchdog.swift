import Synchronization

/// What an ``HTTPIdleWatchdog`` stops when a wait expires: closing it must fail the pending
/// operation promptly.
protocol HTTPIdleTimeoutTarget: AnyObject, Sendable {
    func idleTimeoutExpired()
}

/// Fails an exchange that makes no progress for `timeout` while it waits on the network.
///
/// Each read, write or connect is bracketed by ``beginWait(on:)`` and ``endWait()``; a
/// single task per exchange sleeps until the oldest wait would expire and, if that wait is
/// still pending, stops its target (which fails the pending operation) and records the
/// timeout. Time spent while the consumer does not pull (backpressure) is not a wait, so a
/// healthy stream of any length never times out.
///
/// The per-operation cost is one lock and one clock read; the task exists only from the
/// first wait until ``stop()``.
///
/// - Important: ``stop()`` must be called when the exchange ends (the owner's `deinit` at
///   the latest); it cancels the task.
final class HTTPIdleWatchdog: Sendable {
    private struct State {
        var waitingSince: ContinuousClock.Instant?
        var target: (any HTTPIdleTimeoutTarget)?
        var timedOut = false
        var stopped = false
        var task: Task<Void, Never>?
    }

    let timeout: Duration
    private let state = Mutex(State())

    init(timeout: Duration) {
        self.timeout = timeout
    }

    var didTimeOut: Bool { self.state.withLock { $0.timedOut } }

    /// Starts a wait on `target`; the target is stopped if the wait lasts `timeout`.
    func beginWait(on target: any HTTPIdleTimeoutTarget) {
        let now = ContinuousClock.now
        let needsTask = self.state.withLock { state -> Bool in
            state.waitingSince = now
            state.target = target
            return state.task == nil && !state.stopped
        }
        if needsTask { self.startTask() }
    }

    func endWait() {
        self.state.withLock { state in
            state.waitingSince = nil
            state.target = nil
        }
    }

    /// Ends watching; idempotent.
    func stop() {
        let task = self.state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.target = nil
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    private func startTask() {
        let timeout = self.timeout
        // Weak: the watchdog's owner (an exchange) decides its lifetime, not the task.
        let task = Task { [weak self] in
            enum Step { case stop, sleep(ContinuousClock.Instant), fire(any HTTPIdleTimeoutTarget) }
            while !Task.isCancelled {
                let now = ContinuousClock.now
                guard let self else { return }
                let step = self.state.withLock { state -> Step in
                    if state.stopped { return .stop }
                    guard let since = state.waitingSince else { return .sleep(now + timeout) }
                    if now - since >= timeout, let target = state.target {
                        state.timedOut = true
                        state.stopped = true
                        return .fire(target)
                    }
                    return .sleep(since + timeout)
                }
                switch step {
                case .stop:
                    return
                case .fire(let target):
                    target.idleTimeoutExpired()
                    return
                case .sleep(let deadline):
                    try? await Task.sleep(until: deadline, clock: .continuous)
                }
            }
        }
        let lateStop = self.state.withLock { state -> Bool in
            if state.stopped { return true }
            state.task = task
            return false
        }
        if lateStop { task.cancel() }
    }
}
