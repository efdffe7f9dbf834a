import RealtimeIO
import RealtimeSync
import RealtimeTime

/// What an ``HTTPIdleWatchdog`` stops when a wait expires: closing it must fail the pending
/// operation promptly.
protocol HTTPIdleTimeoutTarget: AnyObject, Sendable {
    /// Where the timer that watches the target's waits runs: its connection's event loop (the
    /// loop's timers on the native stack, Dispatch where there is none).
    var timers: any TimerSource { get }

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
/// The timer is one of the ``TimerSource`` of the target of the wait that armed it (the
/// connection's event loop: an entry in the loop's timer heap on the native stack, a Dispatch
/// timer where there is none; never a sleeping task), and ``stop()`` cancels it so nothing
/// outlives the exchange; the handle knows its source, so a re-armed timer may sit on another
/// loop when a redirect moved the exchange. The per-operation cost is one lock and one clock
/// read.
///
/// The watchdog owns every task it starts: the short task that decides a fired timer on the
/// cooperative pool (at most one at a time, since one timer is armed at a time). It keeps the
/// handle while the task runs, and ``stop()`` and `deinit` cancel it. The timer and the task
/// hold the watchdog weakly.
///
/// - Important: ``stop()`` must be called when the exchange ends (the owner's `deinit` at
///   the latest); it cancels the timer and the task.
final class HTTPIdleWatchdog: Sendable {
    private struct State {
        var waitingSince: MonotonicInstant?
        var target: (any HTTPIdleTimeoutTarget)?
        var timedOut = false
        var stopped = false
        /// A timer is armed (or being armed).
        var armed = false
        var timer: TimerHandle?
        /// The timers of the last wait's target: where the next timer is armed.
        var timers: (any TimerSource)?
        /// The task deciding what a fired timer does, while it runs; `id` tells a handle
        /// stored late (after its task already ran) from the current one.
        var decision: (id: UInt64, task: Task<Void, Never>?)?
        var nextDecisionID: UInt64 = 0
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

    deinit {
        self.stop()
    }

    var didTimeOut: Bool { self.state.withLock { $0.timedOut } }

    /// Starts a wait on `target`; the target is stopped if the wait lasts `timeout`. A stopped
    /// watchdog records nothing: a wait that starts after ``stop()`` (a read racing the end of
    /// the exchange) must not keep its target, which usually owns this watchdog: that
    /// target <-> watchdog cycle kept a whole URLSession transport alive (docs/RELIABILITY.md).
    func beginWait(on target: any HTTPIdleTimeoutTarget) {
        let timers = target.timers
        let now = timers.now
        let arm = self.state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.waitingSince = now
            state.target = target
            state.timers = timers
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
        let (timer, decision) = self.state.withLock { state -> (TimerHandle?, Task<Void, Never>?) in
            state.stopped = true
            state.target = nil
            defer { state.timer = nil }
            return (state.timer, state.decision?.task)
        }
        timer?.cancel()
        decision?.cancel()
    }

    /// The timer fired at `now` (its source's time).
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

    private func arm(at deadline: MonotonicInstant) {
        guard let timers = self.state.withLock({ $0.timers }) else { return }
        // Weak: the watchdog's owner (an exchange) decides its lifetime, not the timer. A loop
        // that shuts down fails the connection itself; the timer has nothing left to do.
        let timer = timers.schedule(at: deadline) { [weak self] in
            self?.timerFired()
        }
        let lateStop = self.state.withLock { state -> Bool in
            if state.stopped { return true }
            state.timer = timer
            return false
        }
        if lateStop { timer.cancel() }
    }

    /// On the source's thread (the loop's): starts the task that decides what the timer does.
    ///
    /// Decided on the cooperative pool, not on the loop thread: a read the loop just resumed
    /// must get to run its `endWait()` first (the pool runs jobs in order), or a busy pool
    /// would turn its scheduling delay into a false timeout. Rare: a timer only fires for a
    /// wait that outlived `timeout` or its stale predecessor.
    private func timerFired() {
        let decision = self.state.withLock { state -> (id: UInt64, timers: any TimerSource)? in
            state.timer = nil
            guard !state.stopped, let timers = state.timers else { return nil }
            let id = state.nextDecisionID
            state.nextDecisionID &+= 1
            state.decision = (id, nil)
            return (id, timers)
        }
        guard let decision else { return }
        let (id, timers) = decision
        let task = Task { [weak self] () -> Void in
            self?.decide(id, now: timers.now, cancelled: Task.isCancelled)
        }
        let cancelNow = self.state.withLock { state -> Bool in
            // Stored only while it runs: a task that already decided cleared its entry.
            if state.decision?.id == id { state.decision?.task = task }
            return state.stopped
        }
        if cancelNow { task.cancel() }
    }

    /// The decision task's body.
    private func decide(_ id: UInt64, now: MonotonicInstant, cancelled: Bool) {
        self.state.withLock { state in
            if state.decision?.id == id { state.decision = nil }
        }
        guard !cancelled else { return }
        switch self.step(now: now) {
        case .stop, .disarm:
            break
        case .fire(let target):
            target.idleTimeoutExpired()
        case .rearm(let next):
            self.arm(at: next)
        }
    }

    /// Whether a timer is armed or a decision task runs (for tests).
    var hasPendingWork: Bool { self.state.withLock { $0.timer != nil || $0.decision != nil } }

    /// Whether a decision task runs (for tests).
    var hasDecisionTask: Bool { self.state.withLock { $0.decision != nil } }
}
