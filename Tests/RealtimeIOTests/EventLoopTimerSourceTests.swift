// An event loop as the package's `TimerSource`: its timers and waits, on the loop thread.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import RealtimeSync
import TestSupport
import Testing
@testable import RealtimeIO

@Suite(TestTimeLimit.minutes(1)) struct EventLoopTimerSourceTests {
    @Test func aTimerRunsOnTheLoopThreadAndACancelledOneNever() async {
        let loop = EventLoopGroup.shared.next()
        let source: any TimerSource = loop
        let fired = LockedValue<[String]>([])
        let cancelled = source.schedule(at: source.now + .milliseconds(10)) { fired.withLock { $0.append("cancelled") } }
        cancelled.cancel()
        _ = source.schedule(at: source.now + .milliseconds(20)) {
            fired.withLock { $0.append(loop.isCurrentThread ? "on the loop" : "elsewhere") }
        }
        let done = await ProcessResources.eventually { !fired.withLock { $0 }.isEmpty }
        #expect(done)
        // Timers fire in deadline order on the one loop thread: the cancelled one was due first.
        #expect(fired.withLock { $0 } == ["on the loop"])
    }

    @Test func aWaitOnTheLoopEnds() async throws {
        let group = EventLoopGroup(loopCount: 1)
        try await group.loops[0].sleep(for: .milliseconds(5))
        #expect(group.pendingTimerCount == 0)
        await group.shutdown()
    }

    /// A cancelled wait ends at once and takes its timer out of the loop's heap.
    @Test func aCancelledWaitLeavesNoTimerOnTheLoop() async {
        let group = EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let waiter = Task { try await loop.sleep(for: .seconds(3_600)) }
        let armed = await ProcessResources.eventually { loop.pendingTimerCount == 1 }
        #expect(armed)
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(loop.pendingTimerCount == 0)
        await group.shutdown()
    }

    /// A loop that shuts down ends its waits (a wake-up runs at the shutdown) and drops its plain
    /// timers; on a loop already shut down a wait returns at once and a timer never runs.
    @Test func aShutDownLoopEndsWaitsAndDropsTimers() async throws {
        let group = EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let fired = LockedValue(false)
        _ = loop.schedule(at: loop.now + .seconds(3_600)) { fired.withLock { $0 = true } }
        let waiter = Task { try await loop.sleep(for: .seconds(3_600)) }
        let armed = await ProcessResources.eventually { loop.pendingTimerCount == 2 }
        #expect(armed)
        await group.shutdown()
        try await waiter.value
        try await loop.sleep(for: .seconds(3_600))
        _ = loop.schedule(at: loop.now) { fired.withLock { $0 = true } }
        #expect(!fired.withLock { $0 })
    }
}
#endif
