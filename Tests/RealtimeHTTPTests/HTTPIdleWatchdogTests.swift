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
        let eventLoop = EventLoopGroup.shared.next()
        let expirations = LockedValue(0)
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

    #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
    @Test func aDroppedWatchdogCancelsItsTimer() throws {
        weak var dropped: HTTPIdleWatchdog?
        let timer: EventLoop.ScheduledTimer
        do {
            let watchdog = HTTPIdleWatchdog(timeout: .seconds(3_600))
            dropped = watchdog
            watchdog.beginWait(on: Target())
            timer = try #require(watchdog.armedTimer)
            #expect(timer.isScheduled)
        }
        #expect(dropped == nil)
        #expect(!timer.isScheduled, "the timer outlived its watchdog")
    }
    #endif
}
