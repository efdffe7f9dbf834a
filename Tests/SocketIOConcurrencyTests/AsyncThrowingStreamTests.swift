import SocketIOConcurrency
import Testing

@Suite struct AsyncThrowingStreamTests {
    typealias Stream = SocketIOClient.AsyncThrowingStream<Int, SocketIOClient.Error>

    @Test func forTryAwaitThrowsTheTypedFailureAfterBufferedValues() async {
        let (stream, continuation) = Stream.makeStream()
        continuation.yield(1)
        continuation.yield(2)
        continuation.finish(throwing: .notConnected(event: "e"))
        var received: [Int] = []
        do {
            for try await value in stream { received.append(value) }
            Issue.record("expected a failure")
        } catch {
            // `error` is statically a SocketIOClient.Error: no cast.
            let typed: SocketIOClient.Error = error
            #expect(typed == .notConnected(event: "e"))
        }
        #expect(received == [1, 2])
    }

    @Test func finishWithoutFailureEndsTheLoop() async throws {
        let (stream, continuation) = Stream.makeStream()
        continuation.yield(7)
        continuation.finish()
        #expect(continuation.yield(8) == .terminated)
        var received: [Int] = []
        for try await value in stream { received.append(value) }
        #expect(received == [7])
    }

    @Test func bufferingNewestDropsTheOldestButNeverTheFailure() async {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(2))
        #expect(continuation.yield(1) == .enqueued(remaining: 1))
        #expect(continuation.yield(2) == .enqueued(remaining: 0))
        #expect(continuation.yield(3) == .dropped(1))
        continuation.finish(throwing: .cancelled)
        var received: [Int] = []
        await #expect(throws: SocketIOClient.Error.cancelled) {
            for try await value in stream { received.append(value) }
        }
        #expect(received == [2, 3])
    }

    @Test func bufferingOldestDropsTheNewValue() async throws {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingOldest(2))
        continuation.yield(1)
        continuation.yield(2)
        #expect(continuation.yield(3) == .dropped(3))
        continuation.finish()
        var received: [Int] = []
        for try await value in stream { received.append(value) }
        #expect(received == [1, 2])
    }

    @Test func unboundedKeepsEverything() async throws {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .unbounded)
        for value in 0..<1000 { continuation.yield(value) }
        continuation.finish()
        var count = 0
        for try await _ in stream { count += 1 }
        #expect(count == 1000)
    }

    @Test func aWaitingConsumerReceivesValuesYieldedLater() async throws {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingOldest(0))
        let consumer = Task { () throws(SocketIOClient.Error) -> [Int] in
            var received: [Int] = []
            for try await value in stream { received.append(value) }
            return received
        }
        // With a zero buffer only a waiting consumer can take a value: retry until it does.
        for value in [10, 20] {
            while case .dropped = continuation.yield(value) { await Task.yield() }
        }
        continuation.finish()
        #expect(try await consumer.value == [10, 20])
    }

    @Test func terminationRunsOnceWhenFinished() async {
        let terminations = Collector<String>()
        let stream = Stream { continuation in
            continuation.onTermination { termination in
                if case .finished(let failure) = termination {
                    terminations.append("finished \(failure.map { "\($0)" } ?? "nil")")
                } else {
                    terminations.append("cancelled")
                }
            }
            continuation.finish(throwing: .cancelled)
            continuation.finish()
        }
        _ = stream
        #expect(terminations.all == ["finished cancelled"])
    }

    @Test func cancellingTheConsumerTerminatesOnceAndReturnsNil() async throws {
        let terminations = Collector<String>()
        let (stream, continuation) = Stream.makeStream()
        continuation.onTermination { _ in terminations.append("terminated") }
        let consumer = Task { () throws(SocketIOClient.Error) -> Int in
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        continuation.yield(1)
        consumer.cancel()
        _ = try await consumer.value
        try await waitUntil { terminations.all.count == 1 }
        continuation.finish()
        #expect(continuation.yield(2) == .terminated)
        #expect(terminations.all == ["terminated"])
    }

    @Test func releasingTheStreamTerminatesIt() {
        let terminations = Collector<String>()
        var stream: Stream? = Stream { continuation in
            continuation.onTermination { termination in
                if case .cancelled = termination { terminations.append("cancelled") }
            }
        }
        #expect(stream != nil)
        stream = nil
        #expect(terminations.all == ["cancelled"])
    }

    @Test func aHandlerSetAfterTheEndRunsAtOnce() {
        let (_, continuation) = Stream.makeStream()
        continuation.finish()
        let ran = Collector<Bool>()
        continuation.onTermination { _ in ran.append(true) }
        #expect(ran.all == [true])
    }
}
