import RealtimeTime
import Testing

@Suite struct TimeAmountTests {
    @Test func unitsAreNanoseconds() {
        #expect(TimeAmount.nanoseconds(7).nanoseconds == 7)
        #expect(TimeAmount.microseconds(3).nanoseconds == 3_000)
        #expect(TimeAmount.milliseconds(25).nanoseconds == 25_000_000)
        #expect(TimeAmount.seconds(2).nanoseconds == 2_000_000_000)
        #expect(TimeAmount.seconds(0.25).nanoseconds == 250_000_000)
        #expect(TimeAmount.milliseconds(1.5).nanoseconds == 1_500_000)
        #expect(TimeAmount.seconds(1) + .milliseconds(500) == .milliseconds(1_500))
        #expect(TimeAmount.seconds(1) - .milliseconds(1_500) == .milliseconds(-500))
        #expect(TimeAmount.seconds(3) * 2 == .seconds(6))
        #expect(TimeAmount.seconds(3) / 2 == .milliseconds(1_500))
        #expect(TimeAmount.seconds(3) / .seconds(2) == 1.5)
        #expect(TimeAmount.milliseconds(1_500).seconds == 1.5)
    }

    /// What a hostile `retry:` field or a caller's `.infinity` timeout gives: the far end of
    /// the range, never a trap.
    @Test func constructorsAndArithmeticSaturate() {
        #expect(TimeAmount.milliseconds(Int64.max) == .max)
        #expect(TimeAmount.seconds(UInt64.max) == .max)
        #expect(TimeAmount.seconds(-Int64.max).nanoseconds == .min)
        #expect(TimeAmount.seconds(Double.infinity) == .max)
        #expect(TimeAmount.seconds(-Double.infinity).nanoseconds == .min)
        #expect(TimeAmount.seconds(Double.nan) == .zero)
        #expect(TimeAmount.max + .seconds(1) == .max)
        #expect(TimeAmount(nanoseconds: .min) - .seconds(1) == TimeAmount(nanoseconds: .min))
        #expect(TimeAmount.max * 3 == .max)
        #expect(TimeAmount.max * -3 == TimeAmount(nanoseconds: .min))
        #expect(-TimeAmount(nanoseconds: .min) == .max)
        #expect(MonotonicInstant.distantFuture + .seconds(5) == .distantFuture)
    }

    @Test(arguments: [(0, 0), (1, 1), (999_999, 1), (1_000_000, 1), (1_000_001, 2), (-1, 0), (-1_500_000, -1)])
    func millisecondsRoundUp(nanoseconds: Int64, milliseconds: Int64) {
        #expect(TimeAmount(nanoseconds: nanoseconds).millisecondsRoundedUp == milliseconds)
    }

    @Test func negativeSpansSleepForZero() {
        #expect(TimeAmount.seconds(-3).nonNegativeNanoseconds == 0)
        #expect(TimeAmount.milliseconds(2).nonNegativeNanoseconds == 2_000_000)
    }

    @Test func instantsOrderAndSubtract() {
        let start = MonotonicInstant(nanosecondsSinceOrigin: 1_000)
        let later = start + .microseconds(5)
        #expect(later > start)
        #expect(later - start == .microseconds(5))
        #expect(start.duration(to: later) == .microseconds(5))
        #expect(later.duration(to: start) == .microseconds(-5))
        #expect(start.advanced(by: .nanoseconds(1)) - .nanoseconds(1) == start)
        var moving = start
        moving += .seconds(1)
        #expect(moving == start + .seconds(1))
    }

    /// The clock never goes back, and it measures the same spans as `ContinuousClock`, which
    /// it replaces (on Linux both read `CLOCK_BOOTTIME`).
    @Test func nowIsMonotonicAndAgreesWithContinuousClock() async throws {
        var previous = MonotonicInstant.now
        for _ in 0..<10_000 {
            let next = MonotonicInstant.now
            #expect(next >= previous)
            previous = next
        }
        #if os(Linux)
        // Each reading of Swift's clock is bracketed by two of ours, so its span must lie between
        // the inner and the outer of our spans, however long the thread was preempted between
        // readings (no drift allowance that a loaded machine could exceed; 1 µs for rounding).
        let ourBeforeStart = MonotonicInstant.now
        let swiftStart = ContinuousClock.now
        let ourAfterStart = MonotonicInstant.now
        try await Task.sleep(.milliseconds(30))
        let ourBeforeEnd = MonotonicInstant.now
        let swiftEnd = ContinuousClock.now
        let ourAfterEnd = MonotonicInstant.now
        let swiftSpan = swiftEnd - swiftStart
        let swiftNanoseconds = swiftSpan.components.seconds * 1_000_000_000 + swiftSpan.components.attoseconds / 1_000_000_000
        #expect(swiftNanoseconds >= (ourBeforeEnd - ourAfterStart).nanoseconds - 1_000)
        #expect(swiftNanoseconds <= (ourAfterEnd - ourBeforeStart).nanoseconds + 1_000)
        #endif
    }

    @Test func sleepWaitsAtLeastTheAmountAndHonoursCancellation() async throws {
        let start = MonotonicInstant.now
        try await Task.sleep(.milliseconds(20))
        #expect(MonotonicInstant.now - start >= .milliseconds(20))
        try await Task.sleep(until: MonotonicInstant.now - .seconds(1))  // a past deadline returns at once
        let sleeper = Task { try await Task.sleep(.seconds(60)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
