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
