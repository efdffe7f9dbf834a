import RealtimeSync
import RealtimeTime
import TestSupport
import Testing

/// The one timer mechanism without I/O: ``ManualTimerSource`` drives ``TimerSource``'s
/// scheduling, cancellation and ``TimerSource/sleep(until:)`` step by step.
@Suite(TestTimeLimit.minutes(1)) struct TimerSourceTests {
    // MARK: Scheduling

    @Test func timersFireInDeadlineOrderAndEqualDeadlinesInSchedulingOrder() {
        let clock = ManualTimerSource()
        let start = clock.now
        let fired = LockedValue<[String]>([])
        for (label, seconds) in [("c", 3), ("a", 1), ("b1", 2), ("b2", 2)] {
            _ = clock.schedule(at: start + .seconds(seconds)) { fired.withLock { $0.append(label) } }
        }
        clock.advance(by: .seconds(1))
        #expect(fired.withLock { $0 } == ["a"])
        clock.advance(by: .seconds(5))
        #expect(fired.withLock { $0 } == ["a", "b1", "b2", "c"])
        #expect(clock.scheduledCount == 0)
        #expect(clock.now == start + .seconds(6))
    }

    /// While a body runs the clock reads its own deadline, and a timer it schedules that is due
    /// by the target of the advance runs in the same advance.
    @Test func aBodySeesItsDeadlineAndItsDueFollowUpRunsInTheSameAdvance() {
        let clock = ManualTimerSource()
        let start = clock.now
        let seen = LockedValue<[MonotonicInstant]>([])
        _ = clock.schedule(at: start + .seconds(1)) {
            seen.withLock { $0.append(clock.now) }
            _ = clock.schedule(at: clock.now + .seconds(1)) { seen.withLock { $0.append(clock.now) } }
        }
        clock.advance(by: .seconds(5))
        #expect(seen.withLock { $0 } == [start + .seconds(1), start + .seconds(2)])
    }

    @Test func aCancelledHandleNeverFiresAndCancellingTwiceOrLateIsHarmless() {
        let clock = ManualTimerSource()
        let fired = LockedValue<[Int]>([])
        let first = clock.schedule(at: clock.now + .seconds(1)) { fired.withLock { $0.append(1) } }
        let second = clock.schedule(at: clock.now + .seconds(1)) { fired.withLock { $0.append(2) } }
        first.cancel()
        first.cancel()
        #expect(clock.scheduledCount == 1)
        clock.advance(by: .seconds(2))
        #expect(fired.withLock { $0 } == [2])
        second.cancel()  // after it fired
        clock.advance(by: .seconds(2))
        #expect(fired.withLock { $0 } == [2])
    }

    @Test func aDeadlineAlreadyPastFiresAtTheNextAdvanceNotInsideSchedule() {
        let clock = ManualTimerSource()
        let fired = LockedValue(false)
        _ = clock.schedule(at: clock.now - .seconds(1)) { fired.withLock { $0 = true } }
        #expect(!fired.withLock { $0 })
        clock.advance(by: .zero)
        #expect(fired.withLock { $0 })
    }

    /// A source that stops drops its timers and refuses new ones; wake-ups run instead, at the
    /// stop or, once stopped, at once.
    @Test func aStoppedSourceDropsTimersAndRunsWakeUps() {
        let clock = ManualTimerSource()
        let fired = LockedValue<[String]>([])
        _ = clock.schedule(at: clock.now + .seconds(1)) { fired.withLock { $0.append("timer") } }
        _ = clock.scheduleWakeUp(at: clock.now + .seconds(1)) { fired.withLock { $0.append("wake-up") } }
        clock.stop()
        #expect(fired.withLock { $0 } == ["wake-up"])
        _ = clock.schedule(at: clock.now + .seconds(1)) { fired.withLock { $0.append("late timer") } }
        _ = clock.scheduleWakeUp(at: clock.now + .seconds(1)) { fired.withLock { $0.append("late wake-up") } }
        clock.advance(by: .seconds(5))
        #expect(fired.withLock { $0 } == ["wake-up", "late wake-up"])
        #expect(clock.scheduledCount == 0)
    }

    /// The default wake-up of a source that never stops is its ordinary timer.
    @Test func aSourceWithoutWakeUpsSchedulesThemAsTimers() {
        let clock = ManualTimerSource()
        let source = ForwardingSource(clock: clock)
        let fired = LockedValue(0)
        _ = source.scheduleWakeUp(at: clock.now + .seconds(1)) { fired.withLock { $0 += 1 } }
        #expect(source.scheduled.withLock { $0 } == 1)
        clock.advance(by: .seconds(1))
        #expect(fired.withLock { $0 } == 1)
    }

    // MARK: Waiting

    @Test func aWaitEndsWhenTheClockReachesItsDeadlineNotBefore() async throws {
        let clock = ManualTimerSource()
        let deadline = clock.now + .seconds(10)
        let woke = LockedValue(false)
        let waiter = Task {
            try await clock.sleep(until: deadline)
            woke.withLock { $0 = true }
        }
        #expect(await clock.waitForScheduledTimers(1))
        #expect(clock.nextDeadline == deadline)
        clock.advance(by: .seconds(9))
        #expect(clock.scheduledCount == 1)
        #expect(!woke.withLock { $0 })
        clock.advance(by: .seconds(1))
        try await waiter.value
        #expect(woke.withLock { $0 })
        #expect(clock.scheduledCount == 0)
    }

    /// Two waits end in deadline order: reaching the first deadline ends only the first.
    @Test func waitsEndInDeadlineOrder() async throws {
        let clock = ManualTimerSource()
        let start = clock.now
        let order = LockedValue<[Int]>([])
        let late = Task {
            try await clock.sleep(until: start + .seconds(2))
            order.withLock { $0.append(2) }
        }
        let early = Task {
            try await clock.sleep(for: .seconds(1))
            order.withLock { $0.append(1) }
        }
        #expect(await clock.waitForScheduledTimers(2))
        clock.advance(by: .seconds(1))
        try await early.value
        #expect(order.withLock { $0 } == [1])
        #expect(clock.scheduledCount == 1)
        clock.advance(by: .seconds(1))
        try await late.value
        #expect(order.withLock { $0 } == [1, 2])
    }

    /// A task cancelled while it waits ends at once with `CancellationError`, and its timer is
    /// cancelled: advancing past the deadline afterwards runs nothing.
    @Test func aCancelledWaitEndsAtOnceAndCancelsItsTimer() async {
        let clock = ManualTimerSource()
        let waiter = Task {
            try await clock.sleep(for: .seconds(3_600))
        }
        #expect(await clock.waitForScheduledTimers(1))
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.scheduledCount == 0)
        clock.advance(by: .seconds(7_200))
    }

    /// A task already cancelled never schedules a timer; a deadline already past returns
    /// without one.
    @Test func aCancelledTaskOrAPastDeadlineSchedulesNothing() async throws {
        let clock = ManualTimerSource()
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        let refused = await cancelled.result
        #expect(throws: CancellationError.self) { try refused.get() }
        try await clock.sleep(until: clock.now - .seconds(1))
        try await clock.sleep(for: .zero)
        #expect(clock.scheduledCount == 0)
    }

    /// A source that stops ends its waits early, without an error.
    @Test func aStoppedSourceEndsItsWaits() async throws {
        let clock = ManualTimerSource()
        let waiter = Task { try await clock.sleep(for: .seconds(60)) }
        #expect(await clock.waitForScheduledTimers(1))
        clock.stop()
        try await waiter.value
        try await clock.sleep(for: .seconds(60))  // stopped already: at once
    }

    /// Cancellations racing the deadline's timer: every wait ends exactly once (a checked
    /// continuation traps on a second resume, and a lost one would never end), either way,
    /// and no timer is left.
    @Test func cancellationRacingTheTimerEndsEachWaitOnce() async {
        let clock = ManualTimerSource()
        for round in 0..<200 {
            let waiter = Task {
                try await clock.sleep(for: .seconds(1))
            }
            if round % 3 != 0 { _ = await clock.waitForScheduledTimers(1) }
            async let cancel: Void = waiter.cancel()
            async let advance: Void = clock.advance(by: .seconds(1))
            _ = await (cancel, advance)
            _ = await waiter.result
            #expect(clock.scheduledCount == 0, "round \(round): a timer outlived its wait")
        }
    }

    // MARK: Dispatch

    @Test func dispatchTimersFireAndACancelledOneNever() async throws {
        let source = DispatchTimerSource.global
        let fired = LockedValue<[Int]>([])
        let cancelled = source.schedule(at: source.now + .milliseconds(20)) { fired.withLock { $0.append(0) } }
        cancelled.cancel()
        _ = source.schedule(at: source.now + .milliseconds(40)) { fired.withLock { $0.append(1) } }
        let done = await ProcessResources.eventually { !fired.withLock { $0 }.isEmpty }
        #expect(done)
        // The cancelled one was due first: had it run, it would be in the list.
        #expect(fired.withLock { $0 } == [1])
    }

    @Test func aDispatchWaitEndsAndACancelledOneEndsAtOnce() async throws {
        let source = DispatchTimerSource.global
        try await source.sleep(for: .milliseconds(5))
        let waiter = Task {
            try await source.sleep(for: .seconds(3_600))
        }
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}

/// A source that implements only the two requirements, as the Socket.IO tests' sources do.
private struct ForwardingSource: TimerSource {
    let clock: ManualTimerSource
    let scheduled = LockedValue(0)

    var now: MonotonicInstant { self.clock.now }

    func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> TimerHandle {
        self.scheduled.withLock { $0 += 1 }
        return self.clock.schedule(at: deadline, body)
    }
}
