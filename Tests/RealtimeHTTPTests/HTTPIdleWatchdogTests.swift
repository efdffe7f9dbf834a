import RealtimeIO
import RealtimeSync
import RealtimeTime
import TestSupport
import Testing

@testable import RealtimeHTTP

/// ``HTTPIdleWatchdog`` owns its timer and the task it starts: after a timeout, ``stop()`` or
/// the watchdog's end, nothing of it is left running.
@Suite(TestTimeLimit.minutes(1)) struct HTTPIdleWatchdogTests {
    final class Target: HTTPIdleTimeoutTarget {
        let timers: any TimerSource
        let expirations = LockedValue(0)

        /// A target on a loop of the process default group (its timer heap on the native
        /// stack, Dispatch elsewhere), or on `timers`.
        init(timers: any TimerSource = EventLoopGroup.shared.next()) {
            self.timers = timers
        }

        var expired: Int { self.expirations.withLock { $0 } }
        func idleTimeoutExpired() { self.expirations.withLock { $0 += 1 } }
    }

    @Test func aWaitThatOutlivesTheTimeoutStopsItsTargetOnceAndLeavesNothingRunning() async throws {
        let watchdog = HTTPIdleWatchdog(timeout: .milliseconds(30))
        let target = Target()
        watchdog.beginWait(on: target)
        let fired = await ProcessResources.eventually { target.expirations.withLock { $0 } == 1 }
        #expect(fired)
        #expect(watchdog.didTimeOut)
        let idle = await ProcessResources.eventually { !watchdog.hasPendingWork }
        #expect(idle, "a timer or task outlived the timeout")
        try await Task.sleep(.milliseconds(100))
        #expect(target.expirations.withLock { $0 } == 1)
    }

    @Test func waitsThatEndInTimeNeverStopTheTarget() async throws {
        // Waits of about 5 ms against a 1 s timeout (a loaded machine stretches a 5 ms sleep, but
        // not to a second), for more than two timeouts: the timer re-arms (or disarms) each time
        // it fires.
        let watchdog = HTTPIdleWatchdog(timeout: .seconds(1))
        let target = Target()
        let started = MonotonicInstant.now
        while MonotonicInstant.now - started < .milliseconds(2_500) {
            watchdog.beginWait(on: target)
            try await Task.sleep(.milliseconds(5))
            watchdog.endWait()
            try await Task.sleep(.milliseconds(5))
        }
        #expect(target.expirations.withLock { $0 } == 0)
        #expect(!watchdog.didTimeOut)
        watchdog.stop()
        let idle = await ProcessResources.eventually { !watchdog.hasPendingWork }
        #expect(idle, "a stopped watchdog left a timer or a task running")
    }

    /// Stops land before, during and after the timer fires (its deciding task included):
    /// each leaves no timer and no task.
    @Test func stopLeavesNoTimerAndNoTask() async throws {
        for round in 0..<40 {
            let watchdog = HTTPIdleWatchdog(timeout: .milliseconds(10))
            let target = Target()
            watchdog.beginWait(on: target)
            try await Task.sleep(.microseconds(Int64(round % 20) * 1_000))
            watchdog.stop()
            let idle = await ProcessResources.eventually { !watchdog.hasPendingWork }
            #expect(idle, "round \(round): a stopped watchdog left a timer or a task running")
            let expirations = target.expirations.withLock { $0 }
            try await Task.sleep(.milliseconds(20))
            #expect(target.expirations.withLock { $0 } == expirations, "round \(round): fired after stop()")
        }
    }

    // MARK: On a manual clock

    @Test func aDroppedWatchdogCancelsItsTimer() {
        let clock = ManualTimerSource()
        weak var dropped: HTTPIdleWatchdog?
        do {
            let watchdog = HTTPIdleWatchdog(timeout: .seconds(3_600))
            dropped = watchdog
            watchdog.beginWait(on: Target(timers: clock))
            #expect(clock.scheduledCount == 1)
            #expect(clock.nextDeadline == clock.now + .seconds(3_600))
        }
        #expect(dropped == nil)
        #expect(clock.scheduledCount == 0, "the timer outlived its watchdog")
    }

    /// The timer fires at the deadline of a wait still pending: the target is stopped once, and
    /// nothing is left armed.
    @Test func aPendingWaitExpiresAtItsDeadline() async {
        let clock = ManualTimerSource()
        let watchdog = HTTPIdleWatchdog(timeout: .seconds(30))
        let target = Target(timers: clock)
        watchdog.beginWait(on: target)
        clock.advance(by: .seconds(29))
        #expect(target.expired == 0)
        #expect(!watchdog.didTimeOut)
        clock.advance(by: .seconds(1))
        let fired = await ProcessResources.eventually { target.expired == 1 }
        #expect(fired)
        #expect(watchdog.didTimeOut)
        let idle = await ProcessResources.eventually { !watchdog.hasPendingWork }
        #expect(idle)
        #expect(clock.scheduledCount == 0)
    }

    /// A wait that ended disarms the timer when it fires; a later wait re-arms for its own
    /// deadline, measured from its start.
    @Test func aLaterWaitRearmsForItsOwnDeadline() async {
        let clock = ManualTimerSource()
        let watchdog = HTTPIdleWatchdog(timeout: .seconds(10))
        let target = Target(timers: clock)
        watchdog.beginWait(on: target)
        clock.advance(by: .seconds(4))
        watchdog.endWait()
        watchdog.beginWait(on: target)  // pending from t+4: its deadline is t+14
        clock.advance(by: .seconds(6))  // the first timer fires at t+10 and re-arms
        let rearmed = await ProcessResources.eventually { clock.scheduledCount == 1 && !watchdog.hasDecisionTask }
        #expect(rearmed)
        #expect(target.expired == 0)
        clock.advance(by: .seconds(4))
        let fired = await ProcessResources.eventually { target.expired == 1 }
        #expect(fired)

        // A wait that ends before the deadline leaves the timer nothing to do.
        let quiet = HTTPIdleWatchdog(timeout: .seconds(10))
        let other = Target(timers: clock)
        quiet.beginWait(on: other)
        quiet.endWait()
        clock.advance(by: .seconds(10))
        let disarmed = await ProcessResources.eventually { !quiet.hasPendingWork }
        #expect(disarmed)
        #expect(clock.scheduledCount == 0)
        #expect(other.expired == 0)
        #expect(!quiet.didTimeOut)
    }

    /// A stop before the deadline cancels the timer: advancing past it runs nothing.
    @Test func stopCancelsTheTimer() {
        let clock = ManualTimerSource()
        let watchdog = HTTPIdleWatchdog(timeout: .seconds(10))
        let target = Target(timers: clock)
        watchdog.beginWait(on: target)
        watchdog.stop()
        #expect(clock.scheduledCount == 0)
        clock.advance(by: .seconds(60))
        #expect(target.expired == 0)
        #expect(!watchdog.hasPendingWork)
    }
}
