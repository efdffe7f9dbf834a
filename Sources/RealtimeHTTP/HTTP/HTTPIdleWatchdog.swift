import RealtimeSync
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import RealtimeIO
#endif

/// What an ``HTTPIdleWatchdog`` stops when a wait expires: closing it must fail the pending
/// operation promptly.
protocol HTTPIdleTimeoutTarget: AnyObject, Sendable {
    func idleTimeoutExpired()
}

/// Fails an exchange that makes no progress for `timeout` while it waits on the network.
///
/// Each read, write or connect is bracketed by ``beginWait(on:)`` and ``endWait()``; one
/// timer per exchange is armed for when the oldest wait would expire and, if that wait is
/// still pending when it fires, stops its target (which fails the pending operation) and
/// records the timeout; otherwise it re-arms for the current wait, or stays off until the
/// next one. Time spent while the consumer does not pull (backpressure) is not a wait, so a
/// healthy stream of any length never times out.
///
/// The timer is one of RealtimeIO's `EventLoop` timers where there is one (an entry in the
/// loop's sorted timer list: no sleeping task, no Dispatch timer, and ``stop()`` removes it so nothing
/// outlives the exchange); elsewhere a task that sleeps. The per-operation cost is one lock
/// and one clock read.
///
/// - Important: ``stop()`` must be called when the exchange ends (the owner's `deinit` at
///   the latest); it cancels the timer.
final class HTTPIdleWatchdog: Sendable {
    private struct State {
        var waitingSince: MonotonicInstant?
        var target: (any HTTPIdleTimeoutTarget)?
        var timedOut = false
        var stopped = false
        /// A timer is armed (or being armed).
        var armed = false
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        var timer: EventLoop.TimerID?
        #else
        var task: Task<Void, Never>?
        #endif
    }

    /// What the timer does when it fires.
    private enum Step {
        case stop
        case disarm
        case rearm(MonotonicInstant)
        case fire(any HTTPIdleTimeoutTarget)
    }

    let timeout: TimeAmount
    private let state = LockedValue(State())

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    var didTimeOut: Bool { self.state.withLock { $0.timedOut } }

    /// Starts a wait on `target`; the target is stopped if the wait lasts `timeout`. A stopped
    /// watchdog records nothing: a wait that starts after ``stop()`` (a read racing the end of
    /// the exchange) must not keep its target, which usually owns this watchdog: that
    /// target <-> watchdog cycle kept a whole URLSession transport alive (docs/RELIABILITY.md).
    func beginWait(on target: any HTTPIdleTimeoutTarget) {
        let now = MonotonicInstant.now
        let arm = self.state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.waitingSince = now
            state.target = target
            guard !state.armed, !state.stopped else { return false }
            state.armed = true
            return true
        }
        if arm { self.arm(at: now + self.timeout) }
    }

    func endWait() {
        self.state.withLock { state in
            state.waitingSince = nil
            state.target = nil
        }
    }

    /// Ends watching; idempotent.
    func stop() {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        let timer = self.state.withLock { state -> EventLoop.TimerID? in
            state.stopped = true
            state.target = nil
            defer { state.timer = nil }
            return state.timer
        }
        if let timer { EventLoop.shared.cancelTimer(timer) }
        #else
        let task = self.state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.target = nil
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
        #endif
    }

    /// The timer fired (or the sleeping task woke) at `now`.
    private func step(now: MonotonicInstant) -> Step {
        self.state.withLock { state -> Step in
            if state.stopped { return .stop }
            guard let since = state.waitingSince else {
                state.armed = false
                return .disarm
            }
            if now - since >= self.timeout, let target = state.target {
                state.timedOut = true
                state.stopped = true
                state.armed = false
                return .fire(target)
            }
            return .rearm(since + self.timeout)
        }
    }

    #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
    private func arm(at deadline: MonotonicInstant) {
        // Weak: the watchdog's owner (an exchange) decides its lifetime, not the timer.
        let timer = EventLoop.shared.scheduleTimer(at: deadline) { [weak self] in
            // Decided on the cooperative pool, not on the loop thread: a read the loop just
            // resumed must get to run its `endWait()` first (the pool runs jobs in order), or a
            // busy pool would turn its scheduling delay into a false timeout. Rare: a timer
            // only fires for a wait that outlived `timeout` or its stale predecessor.
            Task { [weak self] in
                guard let self else { return }
                switch self.step(now: .now) {
                case .stop, .disarm:
                    break
                case .fire(let target):
                    target.idleTimeoutExpired()
                case .rearm(let next):
                    self.arm(at: next)
                }
            }
        }
        let lateStop = self.state.withLock { state -> Bool in
            if state.stopped { return true }
            state.timer = timer
            return false
        }
        if lateStop { EventLoop.shared.cancelTimer(timer) }
    }
    #else
    private func arm(at deadline: MonotonicInstant) {
        let task = Task { [weak self] in
            var deadline = deadline
            while !Task.isCancelled {
                try? await Task.sleep(until: deadline)
                guard !Task.isCancelled, let self else { return }
                switch self.step(now: .now) {
                case .stop, .disarm:
                    return
                case .fire(let target):
                    target.idleTimeoutExpired()
                    return
                case .rearm(let next):
                    deadline = next
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
    #endif
}
