import RealtimeSync
import RealtimeTime
import Testing

/// The package's one cancellable wait list: a task waits only while the condition holds,
/// wakes with the owner's value, and leaves the list when cancelled.
@Suite struct WaitListTests {
    struct Gate {
        var open = false
        var waiters = WaitList<Int>()
    }

    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(1))
        }
        return condition()
    }

    @Test func anOpenConditionReturnsAtOnceWithoutListing() async {
        let gate = LockedValue(Gate(open: true))
        let value = await gate.suspend(on: \.waiters, cancelled: -1) { $0.open ? 7 : nil }
        #expect(value == 7)
        #expect(gate.withLock { $0.waiters.isEmpty })
    }

    @Test func waitersWakeWithTheOwnersValueLongestFirst() async {
        let gate = LockedValue(Gate())
        let first = Task { await gate.suspend(on: \.waiters, cancelled: -1) { $0.open ? 0 : nil } }
        #expect(await self.eventually { gate.withLock { $0.waiters.count } == 1 })
        let second = Task { await gate.suspend(on: \.waiters, cancelled: -1) { $0.open ? 0 : nil } }
        #expect(await self.eventually { gate.withLock { $0.waiters.count } == 2 })
        gate.withLock { $0.waiters.takeFirst() }?.resume(returning: 1)
        #expect(await first.value == 1)
        #expect(gate.withLock { $0.waiters.count } == 1)
        let rest = gate.withLock { $0.waiters.takeAll() }
        for waiter in rest { waiter.resume(returning: 2) }
        #expect(await second.value == 2)
        #expect(gate.withLock { $0.waiters.takeAll() }.isEmpty)
    }

    @Test func aCancelledWaiterLeavesTheListAndTheOthersStay() async {
        let gate = LockedValue(Gate())
        let leaving = Task { await gate.suspend(on: \.waiters, cancelled: -1) { $0.open ? 0 : nil } }
        #expect(await self.eventually { gate.withLock { $0.waiters.count } == 1 })
        let staying = Task { await gate.suspend(on: \.waiters, cancelled: -1) { $0.open ? 0 : nil } }
        #expect(await self.eventually { gate.withLock { $0.waiters.count } == 2 })
        leaving.cancel()
        #expect(await leaving.value == -1)
        #expect(gate.withLock { $0.waiters.count } == 1)
        gate.withLock { $0.waiters.takeFirst() }?.resume(returning: 3)
        #expect(await staying.value == 3)
    }

    @Test func aTaskCancelledBeforeItWaitsIsNeverListed() async {
        let gate = LockedValue(Gate())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await gate.suspend(on: \.waiters, cancelled: -1) { $0.open ? 0 : nil }
        }
        #expect(await task.value == -1)
        #expect(gate.withLock { $0.waiters.isEmpty })
    }
}
