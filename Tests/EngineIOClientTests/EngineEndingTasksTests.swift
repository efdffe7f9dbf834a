import EngineIOClient
import RealtimeSync
import TestSupport
import Testing

/// The record of an ended attempt's closes, without I/O: a task is counted by kind until it
/// reports its end, and `takeAll()` hands every one back to be cancelled.
@Suite struct EngineEndingTasksTests {
    @Test func aTaskIsCountedUntilItReportsItsEnd() async {
        let endings = LockedValue(EngineEndingTasks())
        let release = AsyncGate()
        endings.withLock { record in
            record.start(.webSocketClose) { id in
                await release.wait()
                endings.withLock { $0.ended(id) }
            }
            record.start(.pollingClose) { id in
                endings.withLock { $0.ended(id) }
            }
        }
        #expect(endings.withLock { $0.count(.webSocketClose) } == 1)
        #expect(await ProcessResources.eventually { endings.withLock { $0.count(.pollingClose) } == 0 })
        #expect(endings.withLock { $0.count(.webSocketClose) } == 1)
        release.open()
        #expect(await ProcessResources.eventually { endings.withLock { $0.count(.webSocketClose) } == 0 })
    }

    @Test func takeAllHandsBackEveryTaskToCancel() async {
        let endings = LockedValue(EngineEndingTasks())
        let cancelled = LockedValue(0)
        endings.withLock { record in
            for kind in [EngineEndingTasks.Kind.webSocketClose, .pollingClose] {
                record.start(kind) { id in
                    // Waits until cancelled, as a close waiting for its peer would.
                    while !Task.isCancelled { await Task.yield() }
                    cancelled.withLock { $0 += 1 }
                    endings.withLock { $0.ended(id) }
                }
            }
        }
        let tasks = endings.withLock { $0.takeAll() }
        #expect(tasks.count == 2)
        #expect(endings.withLock { $0.count(.webSocketClose) + $0.count(.pollingClose) } == 0)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        #expect(cancelled.withLock { $0 } == 2)
    }
}

/// A one-shot gate for tests: `wait()` returns once `open()` was called.
final class AsyncGate: Sendable {
    private let state = LockedValue((open: false, waiters: [CheckedContinuation<Void, Never>]()))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = self.state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
