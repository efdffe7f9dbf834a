import EngineIOClient
import Foundation
import RealtimeSync
import TestSupport
import Testing

/// The engine's read gate, without I/O: open passes, paused waits for `resume()`, and a
/// cancelled waiter leaves without the gate opening.
@Suite struct EngineReadGateTests {
    @Test func anOpenGatePassesAtOnce() async {
        let gate = EngineReadGate()
        await gate.waitUntilOpen()
        #expect(!gate.isPaused)
    }

    @Test func aPausedGateHoldsReadersUntilResumed() async throws {
        let gate = EngineReadGate()
        gate.pause()
        let passed = LockedValue(0)
        let readers = (0..<3).map { _ in
            Task {
                await gate.waitUntilOpen()
                passed.withLock { $0 += 1 }
            }
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(passed.withLock { $0 } == 0)
        gate.resume()
        for reader in readers { await reader.value }
        #expect(passed.withLock { $0 } == 3)
        #expect(!gate.isPaused)
    }

    @Test func aCancelledReaderLeavesWhileTheGateStaysPaused() async throws {
        let gate = EngineReadGate()
        gate.pause()
        let reader = Task { () -> Bool in
            await gate.waitUntilOpen()
            return Task.isCancelled
        }
        try await Task.sleep(nanoseconds: 50_000_000)
        reader.cancel()
        #expect(await reader.value == true)
        #expect(gate.isPaused)
        // A reader cancelled before it waits does not wait either.
        let early = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            await gate.waitUntilOpen()
            return Task.isCancelled
        }
        #expect(await early.value == true)
    }
}
