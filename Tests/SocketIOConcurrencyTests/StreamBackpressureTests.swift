import RealtimeSync
import Testing

@testable import SocketIOConcurrency

/// A stream's backpressure without I/O: the buffer reports "behind" at its high-water mark,
/// "far behind" at its hard bound and "caught up" at its low-water mark or when the stream
/// ends, each exactly once per episode; dropping policies count what they drop.
@Suite struct StreamBackpressureTests {
    typealias Stream = SocketIOClient.AsyncThrowingStream<Int, SocketIOClient.Error>

    /// The reports a stream made, in order: `true` for a move to "behind", `false` for a move
    /// back to "caught up" (the cases the first tests follow).
    final class Reports: Sendable {
        private let values = LockedValue<[StreamBackpressure.Change]>([])
        var changes: [StreamBackpressure.Change] { self.values.withLock { $0 } }
        var all: [Bool] { self.changes.map { $0.to != .caughtUp } }
        func backpressure(high: Int = 4, low: Int = 2, hard: Int? = nil) -> StreamBackpressure {
            StreamBackpressure(highWater: high, lowWater: low, hardWater: hard) { change in self.values.withLock { $0.append(change) } }
        }
    }

    /// Past its hard bound a stream is far behind (the socket then stops reading even for an
    /// awaited ack), and draining to the low-water mark brings it back to caught up at once.
    @Test func theBufferReportsFarBehindAtItsHardBound() async throws {
        let reports = Reports()
        var continuation: Stream.Continuation?
        let stream = Stream(bufferingPolicy: .unbounded, backpressure: reports.backpressure(high: 4, low: 2, hard: 8)) {
            continuation = $0
        }
        let producer = try #require(continuation)
        for value in 0..<7 { producer.yield(value) }
        #expect(reports.changes == [.init(from: .caughtUp, to: .behind)])
        producer.yield(7)
        #expect(reports.changes == [.init(from: .caughtUp, to: .behind), .init(from: .behind, to: .farBehind)])
        for value in 8..<20 { producer.yield(value) }
        #expect(reports.changes.count == 2)
        var iterator = stream.makeAsyncIterator()
        for _ in 0..<17 { _ = try await iterator.next() }
        #expect(reports.changes.count == 2)  // 3 waiting
        _ = try await iterator.next()
        #expect(reports.changes.last == .init(from: .farBehind, to: .caughtUp))  // 2 waiting
        // A stream that ends far behind catches up too.
        for value in 0..<10 { producer.yield(value) }
        producer.finish()
        #expect(
            reports.changes.suffix(3) == [
                .init(from: .caughtUp, to: .behind), .init(from: .behind, to: .farBehind), .init(from: .farBehind, to: .caughtUp),
            ])
        // The default hard bound is 16 times the high-water mark; the socket's is 4,096.
        #expect(StreamBackpressure(highWater: 4, lowWater: 2) { _ in }.hardWater == 64)
        #expect(StreamBackpressure.socket { _ in }.hardWater == 4_096)
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
