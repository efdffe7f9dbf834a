import RealtimeSync
import Testing

@testable import SocketIOConcurrency

/// A stream's backpressure without I/O: the buffer reports "behind" at its high-water mark and
/// "caught up" at its low-water mark or when the stream ends, each exactly once per episode;
/// dropping policies count what they drop.
@Suite struct StreamBackpressureTests {
    typealias Stream = SocketIOClient.AsyncThrowingStream<Int, SocketIOClient.Error>

    /// The reports a stream made, in order.
    final class Reports: Sendable {
        private let values = LockedValue<[Bool]>([])
        var all: [Bool] { self.values.withLock { $0 } }
        func backpressure(high: Int = 4, low: Int = 2) -> StreamBackpressure {
            StreamBackpressure(highWater: high, lowWater: low) { behind in self.values.withLock { $0.append(behind) } }
        }
    }

    @Test func theBufferReportsBehindAtItsBoundAndCaughtUpAtHalf() async throws {
        let reports = Reports()
        var continuation: Stream.Continuation?
        let stream = Stream(bufferingPolicy: .unbounded, backpressure: reports.backpressure()) { continuation = $0 }
        let producer = try #require(continuation)
        for value in 0..<3 { producer.yield(value) }
        #expect(reports.all == [])
        producer.yield(3)
        #expect(reports.all == [true])  // 4 waiting
        for value in 4..<10 { producer.yield(value) }
        #expect(reports.all == [true])  // nothing dropped, reported once

        var iterator = stream.makeAsyncIterator()
        var received: [Int] = []
        for _ in 0..<7 { received.append(try #require(try await iterator.next())) }
        #expect(reports.all == [true])  // 3 waiting
        received.append(try #require(try await iterator.next()))
        #expect(reports.all == [true, false])  // 2 waiting: caught up
        producer.yield(10)
        producer.yield(11)
        #expect(reports.all == [true, false, true])  // 4 waiting again
        producer.finish()
        #expect(reports.all == [true, false, true, false])  // the socket need not wait any more
        while let value = try await iterator.next() { received.append(value) }
        #expect(received == Array(0..<12))
        #expect(stream.droppedCount == 0)
    }

    @Test func aCancelledStreamThatWasBehindCatchesUp() async throws {
        let reports = Reports()
        var continuation: Stream.Continuation?
        var stream: Stream? = Stream(bufferingPolicy: .unbounded, backpressure: reports.backpressure()) { continuation = $0 }
        let producer = try #require(continuation)
        for value in 0..<5 { producer.yield(value) }
        #expect(reports.all == [true])
        stream = nil  // the consumer went away
        #expect(stream == nil)
        #expect(reports.all == [true, false])
        #expect(producer.yield(6) == .terminated)
        #expect(reports.all == [true, false])
    }

    /// Dropping policies are the caller's choice: no backpressure, and each drop is counted.
    @Test(arguments: [Stream.BufferingPolicy.bufferingNewest(2), .bufferingOldest(2)])
    func droppingPoliciesCountWhatTheyDrop(_ policy: Stream.BufferingPolicy) async throws {
        let reports = Reports()
        var continuation: Stream.Continuation?
        let stream = Stream(bufferingPolicy: policy, backpressure: reports.backpressure(high: 1, low: 0)) { continuation = $0 }
        let producer = try #require(continuation)
        for value in 0..<5 { producer.yield(value) }
        producer.finish()
        #expect(stream.droppedCount == 3)
        #expect(reports.all == [])
        var received: [Int] = []
        for try await value in stream { received.append(value) }
        #expect(received == (policy == .bufferingNewest(2) ? [3, 4] : [0, 1]))
    }
}
