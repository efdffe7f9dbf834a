import RealtimeSync
package import RealtimeTime

/// A ``TimerSource`` whose clock moves only when it is told to: tests drive timeouts, delays
/// and heartbeats step by step, without waiting and without I/O.
///
/// ``advance(by:)`` moves the clock and runs every timer that came due, in deadline order
/// (equal deadlines in scheduling order), each at its own deadline: while a body runs, ``now``
/// reads that timer's deadline, and a timer it schedules that is due by the target runs in the
/// same advance. Bodies run on the advancing thread, after the source's lock is released, so
/// they may schedule, cancel and advance.
///
/// ```swift
/// let clock = ManualTimerSource()
/// let waiter = Task { try await clock.sleep(for: .seconds(5)) }
/// await clock.waitForScheduledTimers(1)
/// clock.advance(by: .seconds(5))
/// try await waiter.value
/// ```
package final class ManualTimerSource: TimerSource {
    private struct Timer {
        let id: UInt64
        let deadline: MonotonicInstant
        let body: @Sendable () -> Void
        /// Runs when the source stops (a wake-up, ``TimerSource/scheduleWakeUp(at:_:)``).
        let runsOnStop: Bool
    }

    private struct State {
        var now: MonotonicInstant
        /// Pending timers, by (deadline, id).
        var timers: [Timer] = []
        var nextID: UInt64 = 0
        var stopped = false

        mutating func insert(_ timer: Timer) {
            let index = self.timers.firstIndex { ($0.deadline, $0.id) > (timer.deadline, timer.id) } ?? self.timers.endIndex
            self.timers.insert(timer, at: index)
        }
    }

    private let state: LockedValue<State>

    /// A clock that starts at `start` (an arbitrary instant by default).
    package init(start: MonotonicInstant = MonotonicInstant(nanosecondsSinceOrigin: 1_000_000_000)) {
        self.state = LockedValue(State(now: start))
    }

    // MARK: TimerSource

    package var now: MonotonicInstant { self.state.withLock { $0.now } }

    package func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        self.add(deadline, body, runsOnStop: false)
    }

    package func scheduleWakeUp(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        self.add(deadline, body, runsOnStop: true)
    }

    private func add(_ deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void, runsOnStop: Bool) -> TimerHandle {
        let id = self.state.withLock { state -> UInt64? in
            if state.stopped { return nil }
            let id = state.nextID
            state.nextID &+= 1
            state.insert(Timer(id: id, deadline: deadline, body: body, runsOnStop: runsOnStop))
            return id
        }
        guard let id else {
            if runsOnStop { body() }
            return TimerHandle(cancel: {})
        }
        return TimerHandle(cancel: { [weak self] in self?.cancel(id) })
    }

    private func cancel(_ id: UInt64) {
        // The body is released after the lock, so its captures' deinits never run inside it.
        let removed = self.state.withLock { state -> Timer? in
            guard let index = state.timers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.timers.remove(at: index)
        }
        withExtendedLifetime(removed) {}
    }

    // MARK: Driving the clock

    /// Moves the clock forward by `amount` and runs the timers due by then, in order.
    package func advance(by amount: TimeAmount) {
        self.advance(to: self.now + amount)
    }

    /// Moves the clock to `instant` (never backwards) and runs the timers due by then, in order.
    package func advance(to instant: MonotonicInstant) {
        while true {
            let due = self.state.withLock { state -> Timer? in
                guard let first = state.timers.first, first.deadline <= instant else {
                    state.now = max(state.now, instant)
                    return nil
                }
                state.timers.removeFirst()
                state.now = max(state.now, first.deadline)
                return first
            }
            guard let due else { return }
            due.body()
        }
    }

    /// Stops the source for good, as an event loop shuts down: pending wake-ups run now, other
    /// timers are dropped, and later ones are refused the same way.
    package func stop() {
        let wakeUps = self.state.withLock { state -> [Timer] in
            state.stopped = true
            defer { state.timers = [] }
            return state.timers.filter(\.runsOnStop)
        }
        for timer in wakeUps { timer.body() }
    }

    // MARK: Inspecting

    /// How many timers are scheduled and neither fired nor cancelled.
    package var scheduledCount: Int { self.state.withLock { $0.timers.count } }

    /// The earliest pending deadline, if any.
    package var nextDeadline: MonotonicInstant? { self.state.withLock { $0.timers.first?.deadline } }

    /// Returns once at least `count` timers are scheduled (another task's wait got as far as
    /// its timer), yielding in between; `false` if that took more than `attempts` yields.
    @discardableResult
    package func waitForScheduledTimers(_ count: Int, attempts: Int = 100_000) async -> Bool {
        for _ in 0..<attempts {
            if self.scheduledCount >= count { return true }
            await Task.yield()
        }
        return self.scheduledCount >= count
    }
}
