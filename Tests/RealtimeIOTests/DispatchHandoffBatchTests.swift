import Dispatch
import RealtimeSync
import Testing
@testable import RealtimeIO

/// Records which items ran, in order.
final class HandoffLog: Sendable {
    let values = LockedValue<[String]>([])
    func append(_ value: String) { self.values.withLock { $0.append(value) } }
    var all: [String] { self.values.withLock { $0 } }
}

@Suite("DispatchHandoffBatch: a turn's work, one batch per queue")
struct DispatchHandoffBatchTests {
    @Test("items are grouped by queue, in the order given, queues in the order first used")
    func groupsByQueueInOrder() {
        let first = DispatchQueue(label: "handoff.first")
        let second = DispatchQueue(label: "handoff.second")
        let log = HandoffLog()
        var batch = DispatchHandoffBatch()
        #expect(batch.isEmpty)
        batch.add({ log.append("a1") }, for: first)
        batch.add({ log.append("b1") }, for: second)
        batch.add({ log.append("a2") }, for: first)
        batch.add({ log.append("a3") }, for: first)
        let batches = batch.take()
        #expect(batch.isEmpty)
        #expect(batches.count == 2)
        #expect(batches.count == 2 && batches[0].queue === first && batches[1].queue === second)
        #expect(batches.map(\.items.count) == [3, 1])
        DispatchHandoffBatch.run(batches[0].items)
        DispatchHandoffBatch.run(batches[1].items)
        #expect(log.all == ["a1", "a2", "a3", "b1"])
        #expect(batch.take().isEmpty)
    }
}

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
@Suite("EventLoop.async(on:): work handed to a queue from the loop")
struct EventLoopDispatchHandoffTests {
    @Test("work handed off from a job on the loop runs on its queue, all of it, in order")
    func fromALoopJob() async {
        let group = EventLoopGroup(loopCount: 1)
        let loop = group.next()
        let queue = DispatchQueue(label: "handoff.loop")
        let log = HandoffLog()
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let onQueue = LockedValue(true)
        await withTaskExecutorPreference(loop) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // One job of the loop: everything handed off here is held to the end of its turn.
                #expect(loop.isCurrentThread)
                for index in 0..<100 {
                    loop.async(on: queue) {
                        if DispatchQueue.getSpecific(key: key) != 1 { onQueue.withLock { $0 = false } }
                        log.append("\(index)")
                    }
                }
                loop.async(on: queue) { continuation.resume() }
            }
        }
        #expect(log.all == (0..<100).map { "\($0)" })
        // Off the loop's thread: at once.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            #expect(!loop.isCurrentThread)
            loop.async(on: queue) {
                log.append("off the loop")
                continuation.resume()
            }
        }
        #expect(log.all == (0..<100).map { "\($0)" } + ["off the loop"])
        #expect(onQueue.withLock { $0 })
        await group.shutdown()
    }
}
#endif
