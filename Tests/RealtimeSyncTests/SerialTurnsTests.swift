import Dispatch
import RealtimeSync
import Testing

@Suite struct SerialTurnsTests {
    @Test func theFirstOfferMakesItsCallerThePerformer() {
        var turns = SerialTurns<Int>()
        #expect(!turns.isPerforming)
        #expect(turns.offer(1) == 1)
        #expect(turns.isPerforming)
        // While performing, offers queue for the performer, in order.
        #expect(turns.offer(2) == nil)
        #expect(turns.offer(3) == nil)
        #expect(turns.queuedCount == 2)
        #expect(turns.nextBatch() == [2, 3])
        #expect(turns.offer(4) == nil)
        #expect(turns.nextBatch() == [4])
        // Nothing queued: the turn ends, and the next offer's caller performs it.
        #expect(turns.nextBatch() == nil)
        #expect(!turns.isPerforming)
        #expect(turns.offer(5) == 5)
        #expect(turns.nextBatch() == nil)
    }

    /// Threads offer numbered work under one lock and perform what they are handed after
    /// releasing it: never two performers at once, each thread's work performed in the order
    /// it was offered, and nothing left behind when every thread is done.
    @Test func concurrentOffersArePerformedOnceEachInOrderByOneThreadAtATime() {
        struct State {
            var turns = SerialTurns<(thread: Int, index: Int)>()
            var performed: [[Int]] = Array(repeating: [], count: 8)
        }
        let state = LockedValue(State())
        let performers = LockedValue((current: 0, most: 0))
        @Sendable func perform(_ work: (thread: Int, index: Int)) {
            performers.withLock {
                $0.current += 1
                $0.most = max($0.most, $0.current)
            }
            state.withLock { $0.performed[work.thread].append(work.index) }
            performers.withLock { $0.current -= 1 }
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<2_000 {
                guard let work = state.withLock({ $0.turns.offer((thread, index)) }) else { continue }
                perform(work)
                while let batch = state.withLock({ $0.turns.nextBatch() }) {
                    for queued in batch { perform(queued) }
                }
            }
        }
        let (performed, performing, queued) = state.withLock { ($0.performed, $0.turns.isPerforming, $0.turns.queuedCount) }
        #expect(performers.withLock { $0.most } == 1)
        #expect(performed.allSatisfy { $0 == Array(0..<2_000) })
        #expect(!performing && queued == 0)
    }
}
