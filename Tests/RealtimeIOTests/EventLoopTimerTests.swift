// The native stack's tests: RealtimeIO has no sockets in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Testing
import RealtimeSync
@testable import RealtimeIO

@Suite("EventLoop timers")
struct EventLoopTimerTests {
    @Test("timers fire in deadline order on the loop thread; a cancelled timer never fires")
    func order() async throws {
        let fired = LockedValue<[Int]>([])
        let now = MonotonicInstant.now
        let loop = EventLoopGroup.shared.next()
        for (label, delay) in [(3, 90), (1, 30), (2, 60)] {
            loop.scheduleTimer(at: now + .milliseconds(delay)) { fired.withLock { $0.append(label) } }
        }
        let cancelled = loop.scheduleTimer(at: now + .milliseconds(45)) { fired.withLock { $0.append(99) } }
        cancelled.cancel()
        let deadline = MonotonicInstant.now + .seconds(10)
        while fired.withLock({ $0.count }) < 3, MonotonicInstant.now < deadline {
            try await Task.sleep(.milliseconds(10))
        }
        // No sleep "to see that nothing else fires": timers fire in deadline order on the one
        // loop thread, so the cancelled 45 ms timer would have fired before the 90 ms one.
        #expect(fired.withLock { $0 } == [1, 2, 3])
    }

    @Test("a timer earlier than the loop's current sleep wakes it (not delayed to the later one)")
    func earlierTimerWakesLoop() async throws {
        let loop = EventLoopGroup.shared.next()
        let far = loop.scheduleTimer(at: .now + .seconds(60)) {}
        defer { far.cancel() }
        try await Task.sleep(.milliseconds(20))  // the loop now sleeps until the far timer
        let started = MonotonicInstant.now
        let firedAt = LockedValue<MonotonicInstant?>(nil)
        loop.scheduleTimer(at: started + .milliseconds(20)) { firedAt.withLock { $0 = .now } }
        let deadline = started + .seconds(10)
        while firedAt.withLock({ $0 }) == nil, MonotonicInstant.now < deadline {
            try await Task.sleep(.milliseconds(5))
        }
        let at = try #require(firedAt.withLock { $0 })
        #expect(at - started >= .milliseconds(19))
        #expect(at - started < .seconds(5))
    }

    /// The loop thread's voluntary context switches so far (`/proc/self/task/<tid>/status`).
    static func voluntarySwitches(of loop: EventLoop) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/task/\(loop.threadKernelID)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
    }

    @Test("a timer another thread schedules beyond the loop's bounded sleep does not wake it, and still fires on time")
    func farTimersFromAnotherThreadDoNotWakeTheLoop() async throws {
        let group = EventLoopGroup(loopCount: 1)
        let loop = group.next()
        let anchor = loop.scheduleTimer(at: .now + .seconds(60)) {}
        // The group is shut down however the checks end.
        var failure: (any Error)?
        do {
            try await self.checkFarTimers(on: loop)
        } catch {
            failure = error
        }
        anchor.cancel()
        await group.shutdown()
        if let failure { throw failure }
    }

    private func checkFarTimers(on loop: EventLoop) async throws {
        // An ack's pattern, from this thread: a deadline 5 s out, armed and cancelled.
        let warmup = loop.scheduleTimer(at: .now + .seconds(5)) {}
        warmup.cancel()
        try await Task.sleep(.milliseconds(50))  // the loop sleeps: at most `maximumSleep`
        let before = try Self.voluntarySwitches(of: loop)
        for _ in 0..<50 {
            loop.scheduleTimer(at: .now + .seconds(5)) {}.cancel()
            try await Task.sleep(.milliseconds(2))  // the loop goes back to sleep
        }
        let started = MonotonicInstant.now
        let firedAt = LockedValue<MonotonicInstant?>(nil)
        loop.scheduleTimer(at: started + .milliseconds(1_500)) { firedAt.withLock { $0 = .now } }
        let woken = try Self.voluntarySwitches(of: loop) - before
        // Each of those used to write the loop's eventfd and wake it: 50 wake-ups. Now none is
        // needed; the loop may still wake for its own bounded sleep meanwhile.
        #expect(woken < 10, "the loop woke \(woken) times for 51 far timers")
        while firedAt.withLock({ $0 }) == nil, MonotonicInstant.now < started + .seconds(10) {
            try await Task.sleep(.milliseconds(20))
        }
        let at = try #require(firedAt.withLock { $0 })
        #expect(at - started >= .milliseconds(1_499))
        // Not delayed to the 60 s anchor: the bounded sleep woke the loop in time.
        #expect(at - started < .milliseconds(2_500))
    }
}
#endif
