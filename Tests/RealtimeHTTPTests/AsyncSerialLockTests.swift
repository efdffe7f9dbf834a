import RealtimeSync
import TestSupport
import Testing

@testable import RealtimeHTTP

/// ``AsyncSerialLock``: FIFO hand-over, and cancellable waits that never lose the lock.
@Suite(TestTimeLimit.minutes(1)) struct AsyncSerialLockTests {
    /// Yields until `lock` lists `count` waiters.
    static func waitForWaiters(_ lock: AsyncSerialLock, count: Int) async {
        while lock.waiterCount != count { await Task.yield() }
    }

    @Test func aWaiterCancelledWhileTheLockIsHeldLeavesTheListAndThrows() async throws {
        let lock = AsyncSerialLock()
        #expect(lock.tryLock())
        let waiter = Task { () -> Bool in
            do {
                try await lock.lock()
                lock.unlock()
                return true
            } catch {
                return false
            }
        }
        await Self.waitForWaiters(lock, count: 1)
        waiter.cancel()
        #expect(await waiter.value == false, "a cancelled waiter must throw, not take the lock")
        #expect(lock.waiterCount == 0)
        // The holder still has the lock; unlocking frees it (nobody to hand it to).
        #expect(!lock.tryLock())
        lock.unlock()
        #expect(lock.tryLock())
        lock.unlock()
    }

    @Test func aTaskCancelledBeforeItWaitsThrowsAtOnceButTakesAFreeLock() async throws {
        let lock = AsyncSerialLock()
        #expect(lock.tryLock())
        let held = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await lock.lock()
                return true
            } catch {
                return false
            }
        }
        #expect(await held.value == false)
        #expect(lock.waiterCount == 0)
        lock.unlock()
        // A free lock needs no wait, so there is nothing to cancel.
        let free = Task { () -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await lock.lock()
                return true
            } catch {
                return false
            }
        }
        #expect(await free.value == true)
        lock.unlock()
    }

    @Test func cancellingWaitersKeepsTheOrderOfTheOthers() async throws {
        let lock = AsyncSerialLock()
        let order = LockedValue<[Int]>([])
        #expect(lock.tryLock())
        var waiters: [Task<Void, Never>] = []
        for index in 0..<6 {
            waiters.append(
                Task {
                    do {
                        try await lock.lock()
                        order.withLock { $0.append(index) }
                        lock.unlock()
                    } catch {
                        order.withLock { $0.append(-index - 1) }
                    }
                })
            // Listed one after the other, so the list's order is the index order.
            await Self.waitForWaiters(lock, count: index + 1)
        }
        // One after the other: two cancelled tasks run their catch blocks concurrently, so
        // cancelling both at once left the order of -2 and -5 to the scheduler (a flake).
        waiters[1].cancel()
        await waiters[1].value
        waiters[4].cancel()
        await waiters[4].value
        #expect(lock.waiterCount == 4)
        lock.unlock()
        for waiter in waiters { await waiter.value }
        #expect(order.withLock { $0 } == [-2, -5, 0, 2, 3, 5])
        #expect(lock.tryLock())
    }

    /// Cancelling the first waiter races with the holder's unlock: whichever wins, the lock
    /// reaches the second waiter and is free afterwards; it is never lost or held twice. Odd
    /// rounds unlock first and cancel right after, so the lock is usually handed to the first
    /// waiter before its task runs again: it must pass the lock on.
    @Test func aCancellationRacingTheHandOverNeverLosesTheLock() async throws {
        let lock = AsyncSerialLock()
        let holders = LockedValue(0)
        var outcomes = (acquired: 0, cancelled: 0)
        for round in 0..<2_000 {
            #expect(lock.tryLock())
            let first = Task { () -> Bool? in
                do {
                    try await lock.lock()
                } catch {
                    return nil
                }
                holders.withLock { $0 += 1 }
                let alone = holders.withLock { $0 } == 1
                holders.withLock { $0 -= 1 }
                lock.unlock()
                return alone
            }
            await Self.waitForWaiters(lock, count: 1)
            let second = Task { () -> Bool in
                do {
                    try await lock.lock()
                } catch {
                    return false
                }
                holders.withLock { $0 += 1 }
                let alone = holders.withLock { $0 } == 1
                holders.withLock { $0 -= 1 }
                lock.unlock()
                return alone
            }
            await Self.waitForWaiters(lock, count: 2)
            if round % 2 == 0 {
                // Both at once, from two threads.
                async let cancel: Void = first.cancel()
                lock.unlock()
                await cancel
            } else {
                lock.unlock()
                first.cancel()
            }
            let firstOutcome = await first.value
            #expect(await second.value, "the second waiter must get the lock, alone")
            if let alone = firstOutcome {
                #expect(alone, "two holders at once")
                outcomes.acquired += 1
            } else {
                outcomes.cancelled += 1
            }
            #expect(lock.waiterCount == 0)
            #expect(lock.tryLock(), "the lock was lost")
            lock.unlock()
        }
        #expect(outcomes.acquired + outcomes.cancelled == 2_000)
    }
}
