import Testing

@testable import EngineIOProtocol

/// The WebSocket send queue machine: one writer at a time, batches in queue order, a close
/// after everything before it, nothing after it.
@Suite struct EngineWebSocketSendQueueTests {
    typealias Queue = EngineWebSocketSendQueue
    typealias Batch = EngineWebSocketSendQueue.Batch

    @Test func aLoneWriteMakesTheCallerTheWriterAndGoesIdleAfter() {
        var queue = Queue()
        #expect(queue.state == .idle)
        #expect(queue.enqueue(.frames([.text("4a")], writeID: 0)) == Batch(frames: [.text("4a")], writeID: 0))
        #expect(queue.state == .sending)
        #expect(queue.written() == nil)
        #expect(queue.state == .idle)
        // A spurious report changes nothing.
        #expect(queue.written() == nil)
        #expect(queue.state == .idle)
    }

    @Test func writesQueuedWhileSendingGoOutInOneBatchInOrder() {
        var queue = Queue()
        #expect(queue.enqueue(.frames([.text("4a")], writeID: 0)) != nil)
        // A second and third sender find the writer busy.
        #expect(queue.enqueue(.frames([.text("4b"), .binary([1])], writeID: 1)) == nil)
        #expect(queue.enqueue(.frames([.text("3")], writeID: nil)) == nil)
        #expect(queue.enqueue(.frames([.text("4c")], writeID: 2)) == nil)
        #expect(queue.queuedCount == 3)
        // The writer takes them all in one flush; the batch carries the highest write id.
        #expect(queue.written() == Batch(frames: [.text("4b"), .binary([1]), .text("3"), .text("4c")], writeID: 2))
        #expect(queue.state == .sending)
        #expect(queue.enqueue(.frames([.text("4d")], writeID: nil)) == nil)
        #expect(queue.written() == Batch(frames: [.text("4d")], writeID: nil))
        #expect(queue.written() == nil)
        #expect(queue.state == .idle)
        // Idle again: the next sender writes itself.
        #expect(queue.enqueue(.frames([.text("4e")], writeID: 3)) == Batch(frames: [.text("4e")], writeID: 3))
    }

    /// A server that pings without reading (the writer is stuck) cannot grow the queue: one
    /// pong waits, and answers every ping before it.
    @Test func aPongWaitsOnceBehindTheWriter() {
        var queue = Queue()
        #expect(queue.enqueue(.frames([.text("4a")], writeID: 0)) != nil)
        for _ in 0..<10_000 {
            #expect(queue.enqueue(.frames([.text("3")], writeID: nil)) == nil)
        }
        #expect(queue.enqueue(.frames([.text("4b")], writeID: 1)) == nil)
        #expect(queue.queuedCount == 2)
        #expect(queue.queuedBytes == 3)
        #expect(queue.written() == Batch(frames: [.text("3"), .text("4b")], writeID: 1))
        // Taken by the writer: the next ping's pong queues again.
        #expect(queue.enqueue(.frames([.text("3")], writeID: nil)) == nil)
        #expect(queue.written() == Batch(frames: [.text("3")]))
        #expect(queue.written() == nil)
        // Messages are never coalesced.
        #expect(queue.enqueue(.frames([.text("4c")], writeID: nil)) != nil)
        #expect(queue.enqueue(.frames([.text("4c")], writeID: nil)) == nil)
        #expect(queue.enqueue(.frames([.text("4c")], writeID: nil)) == nil)
        #expect(queue.queuedCount == 2)
    }

    @Test func aCloseGoesAfterWhatWasQueuedBeforeAndNothingAfterIt() {
        var queue = Queue()
        #expect(queue.enqueue(.frames([.text("4a")], writeID: 0)) != nil)
        #expect(queue.enqueue(.frames([.text("1")], writeID: nil)) == nil)
        #expect(queue.enqueue(.close) == nil)
        #expect(queue.state == .draining)
        // Frames after the close are dropped.
        #expect(queue.enqueue(.frames([.text("4late")], writeID: 1)) == nil)
        #expect(queue.enqueue(.close) == nil)
        #expect(queue.written() == Batch(frames: [.text("1")], writeID: nil, closes: true))
        #expect(queue.state == .closed)
        #expect(queue.written() == nil)
        #expect(queue.enqueue(.frames([.text("4b")], writeID: 2)) == nil)
        #expect(queue.state == .closed)
    }

    @Test func aCloseOnAnIdleQueueIsTheCallersToWrite() {
        var queue = Queue()
        #expect(queue.enqueue(.close) == Batch(frames: [], closes: true))
        #expect(queue.state == .closed)
        #expect(queue.written() == nil)
    }

    @Test func failureDropsTheQueueAndReportsItsWriteIDs() {
        var queue = Queue()
        #expect(queue.enqueue(.frames([.text("4a")], writeID: 0)) != nil)
        #expect(queue.enqueue(.frames([.text("4b")], writeID: 1)) == nil)
        #expect(queue.enqueue(.frames([.text("3")], writeID: nil)) == nil)
        #expect(queue.enqueue(.frames([.text("4c")], writeID: 2)) == nil)
        #expect(queue.fail() == [1, 2])
        #expect(queue.state == .closed)
        #expect(queue.queuedCount == 0)
        // The writer that was at work learns there is nothing more.
        #expect(queue.written() == nil)
        #expect(queue.enqueue(.frames([.text("4d")], writeID: 3)) == nil)
    }

    /// Whatever the interleaving of senders and the writer, frames leave in the order they were
    /// queued, each exactly once, and at most one writer holds a batch.
    @Test(arguments: [1, 2, 7, 42]) func randomInterleavingsKeepOrder(seed: UInt64) {
        var random = seed
        func next() -> UInt64 {
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var queue = Queue()
        var written: [EngineWebSocketFrame] = []
        var completedThrough = -1
        var holding: Batch?
        var nextValue = 0
        for _ in 0..<2_000 {
            if holding == nil || next() % 3 != 0 {
                let frame = EngineWebSocketFrame.text("4\(nextValue)")
                let batch = queue.enqueue(.frames([frame], writeID: nextValue))
                nextValue += 1
                if let batch {
                    #expect(holding == nil, "two writers")
                    holding = batch
                }
            } else if let batch = holding {
                written += batch.frames
                if let id = batch.writeID {
                    #expect(id > completedThrough)
                    completedThrough = id
                }
                holding = queue.written()
            }
        }
        while let batch = holding {
            written += batch.frames
            holding = queue.written()
        }
        #expect(written == (0..<nextValue).map { EngineWebSocketFrame.text("4\($0)") })
        #expect(queue.state == .idle)
    }
}
