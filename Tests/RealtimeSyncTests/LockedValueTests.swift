import Dispatch
import RealtimeSync
import Testing

@Suite struct LockedValueTests {
    @Test func concurrentIncrementsAreNotLost() {
        let counter = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 {
                counter.withLock { $0 += 1 }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func typedThrowsPassThroughAndTheLockIsReleased() {
        struct Refused: Error, Equatable {}
        let value = LockedValue([1, 2])
        #expect(throws: Refused.self) {
            try value.withLock { (state: inout [Int]) throws(Refused) -> Void in
                state.append(3)
                throw Refused()
            }
        }
        // The mutation before the throw stays, and the lock is free again.
        #expect(value.withLock { $0 } == [1, 2, 3])
    }
}

/// A counter no lock of its own protects: only the domain's mutex keeps its increments apart.
private final class UnguardedCounter: @unchecked Sendable {
    var count = 0
}

@Suite struct LockDomainTests {
    /// Values of one domain exclude each other: increments of one counter made inside either
    /// value's critical section are never lost. (With a mutex each, the two threads would be
    /// in their sections at once and increments would be lost, and ThreadSanitizer would
    /// report the race.)
    @Test func valuesOfOneDomainExcludeEachOther() {
        let domain = LockDomain.make()
        let first = LockedValue(0, sharing: domain)
        let second = LockedValue("", sharing: domain)
        #expect(first.domain === domain && second.domain === domain)
        let unguarded = UnguardedCounter()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for _ in 0..<20_000 {
                if index.isMultiple(of: 2) {
                    first.withLock { value in
                        value += 1
                        unguarded.count += 1
                    }
                } else {
                    second.withLock { _ in unguarded.count += 1 }
                }
            }
        }
        #expect(unguarded.count == 80_000)
        #expect(first.withLock { $0 } == 40_000)
    }

    /// `withLock(together:)` changes both values in one critical section: a reader of either
    /// never sees one changed without the other.
    @Test func withLockTogetherChangesBothValuesInOneSection() {
        let domain = LockDomain.make()
        let debit = LockedValue(1_000, sharing: domain)
        let credit = LockedValue(0, sharing: domain)
        let torn = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for _ in 0..<5_000 {
                if index < 2 {
                    debit.withLock(together: credit) { debit, credit in
                        debit -= 1
                        credit += 1
                    }
                } else {
                    let sum = debit.withLock(together: credit) { debit, credit in debit + credit }
                    if sum != 1_000 { torn.withLock { $0 += 1 } }
                }
            }
        }
        #expect(torn.withLock { $0 } == 0)
        #expect(debit.withLock(together: credit) { ($0, $1) } == (-9_000, 10_000))
    }

    /// A value made without a domain has a mutex of its own.
    @Test func aValueWithoutADomainHasItsOwn() {
        let first = LockedValue(0)
        let second = LockedValue(0)
        #expect(first.domain == nil && second.domain == nil)
        // Each can be locked while the other is held: no shared mutex to deadlock on.
        first.withLock { _ in second.withLock { $0 += 1 } }
        #expect(second.withLock { $0 } == 1)
    }
}
