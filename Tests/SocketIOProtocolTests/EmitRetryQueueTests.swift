import SocketIOProtocol
import Testing

/// ``EmitRetryQueue``: socket.io-client 4.8's `retries` rules (`_addToQueue`, `_drainQueue`),
/// without I/O.
@Suite struct EmitRetryQueueTests {
    typealias Queue = EmitRetryQueue<String>

    static func queued(_ result: Queue.EnqueueResult) -> [Queue.Action] {
        guard case .queued(_, let actions) = result else {
            Issue.record("not queued: \(result)")
            return []
        }
        return actions
    }

    @Test func nothingIsSentBeforeTheSocketConnectsThenTheHeadGoesFirst() {
        var queue = Queue(retries: 1, limit: 10)
        #expect(queue.enqueue("a") == .queued(sequence: 0, []))
        #expect(Self.queued(queue.enqueue("b")) == [])
        #expect(queue.connected() == [.send(sequence: 0, emit: "a", attempt: 1)])
        #expect(queue.count == 2)
    }

    @Test func emitsGoOutOneAtATimeInOrder() {
        var queue = Queue(retries: 0, limit: 10)
        _ = queue.connected()
        #expect(Self.queued(queue.enqueue("a")) == [.send(sequence: 0, emit: "a", attempt: 1)])
        #expect(Self.queued(queue.enqueue("b")) == [])
        #expect(Self.queued(queue.enqueue("c")) == [])
        #expect(queue.acknowledged(sequence: 0) == [.acknowledged("a"), .send(sequence: 1, emit: "b", attempt: 1)])
        #expect(queue.acknowledged(sequence: 1) == [.acknowledged("b"), .send(sequence: 2, emit: "c", attempt: 1)])
        #expect(queue.acknowledged(sequence: 2) == [.acknowledged("c")])
        #expect(queue.count == 0)
    }

    @Test func anAckForAnythingButTheHeadsTryIsIgnored() {
        var queue = Queue(retries: 1, limit: 10)
        _ = queue.connected()
        _ = queue.enqueue("a")
        _ = queue.enqueue("b")
        // "b" was never sent; 7 was never queued.
        #expect(queue.acknowledged(sequence: 1) == [])
        #expect(queue.acknowledged(sequence: 7) == [])
        #expect(queue.timedOut(sequence: 1) == [])
        #expect(queue.head?.sequence == 0)
        // A second ack for the head, after it was done, is ignored too.
        #expect(queue.acknowledged(sequence: 0).count == 2)
        #expect(queue.acknowledged(sequence: 0) == [])
        #expect(queue.head?.sequence == 1)
    }

    @Test func aTimedOutTryIsMadeAgainUpToRetriesThenTheEmitFails() {
        var queue = Queue(retries: 2, limit: 10)
        _ = queue.connected()
        #expect(Self.queued(queue.enqueue("a")) == [.send(sequence: 0, emit: "a", attempt: 1)])
        _ = queue.enqueue("b")
        #expect(queue.timedOut(sequence: 0) == [.send(sequence: 0, emit: "a", attempt: 2)])
        #expect(queue.timedOut(sequence: 0) == [.send(sequence: 0, emit: "a", attempt: 3)])
        #expect(queue.timedOut(sequence: 0) == [.failed("a", tries: 3), .send(sequence: 1, emit: "b", attempt: 1)])
        // Its late ack changes nothing.
        #expect(queue.acknowledged(sequence: 0) == [])
        #expect(queue.acknowledged(sequence: 1) == [.acknowledged("b")])
    }

    @Test func anAckOnALaterTryDeliversOnce() {
        var queue = Queue(retries: 3, limit: 10)
        _ = queue.connected()
        _ = queue.enqueue("a")
        _ = queue.timedOut(sequence: 0)
        #expect(queue.acknowledged(sequence: 0) == [.acknowledged("a")])
        #expect(queue.timedOut(sequence: 0) == [])
        #expect(queue.count == 0)
    }

    @Test func withoutRetriesOneTimeoutFails() {
        var queue = Queue(retries: 0, limit: 10)
        _ = queue.connected()
        _ = queue.enqueue("a")
        #expect(queue.timedOut(sequence: 0) == [.failed("a", tries: 1)])
    }

    @Test func aDisconnectEndsTheTryInFlightAndTheReconnectionSendsItAgain() {
        var queue = Queue(retries: 2, limit: 10)
        _ = queue.connected()
        _ = queue.enqueue("a")
        _ = queue.enqueue("b")
        #expect(queue.disconnected() == [])
        // While disconnected nothing goes out, and a stale timeout is ignored.
        #expect(queue.timedOut(sequence: 0) == [])
        #expect(Self.queued(queue.enqueue("c")) == [])
        #expect(queue.connected() == [.send(sequence: 0, emit: "a", attempt: 2)])
        #expect(queue.acknowledged(sequence: 0) == [.acknowledged("a"), .send(sequence: 1, emit: "b", attempt: 1)])
    }

    @Test func aDisconnectOnTheLastTryGivesTheEmitUp() {
        var queue = Queue(retries: 1, limit: 10)
        _ = queue.connected()
        _ = queue.enqueue("a")
        _ = queue.enqueue("b")
        _ = queue.timedOut(sequence: 0)  // try 2 of 2 in flight
        #expect(queue.disconnected() == [.failed("a", tries: 2)])
        #expect(queue.connected() == [.send(sequence: 1, emit: "b", attempt: 1)])
    }

    @Test func aReconnectionWithNothingInFlightSendsTheHeadOnce() {
        var queue = Queue(retries: 1, limit: 10)
        #expect(queue.disconnected() == [])
        _ = queue.enqueue("a")
        #expect(queue.connected() == [.send(sequence: 0, emit: "a", attempt: 1)])
        #expect(queue.disconnected() == [])
        #expect(queue.connected() == [.send(sequence: 0, emit: "a", attempt: 2)])
        #expect(queue.disconnected() == [.failed("a", tries: 2)])
        #expect(queue.connected() == [])
    }

    @Test func theQueueIsBounded() {
        var queue = Queue(retries: 1, limit: 2)
        _ = queue.enqueue("a")
        _ = queue.enqueue("b")
        #expect(queue.enqueue("c") == .full(limit: 2))
        #expect(queue.count == 2)
        _ = queue.connected()
        _ = queue.acknowledged(sequence: 0)
        #expect(Self.queued(queue.enqueue("c")) == [])
        #expect(queue.count == 2)
    }

    @Test func aCancelledEmitLeavesTheQueue() {
        var queue = Queue(retries: 1, limit: 10)
        _ = queue.connected()
        _ = queue.enqueue("a")
        _ = queue.enqueue("b")
        _ = queue.enqueue("c")
        // Not the head: removed, nothing sent.
        let (removed, actions) = queue.cancel(sequence: 1)
        #expect(removed == "b" && actions == [])
        // The head in flight: removed, the next goes out; its late ack is ignored.
        let (head, next) = queue.cancel(sequence: 0)
        #expect(head == "a" && next == [.send(sequence: 2, emit: "c", attempt: 1)])
        #expect(queue.acknowledged(sequence: 0) == [])
        #expect(queue.cancel(sequence: 0).0 == nil)
        #expect(queue.acknowledged(sequence: 2) == [.acknowledged("c")])
    }

    @Test func manyEmitsKeepTheirOrderAcrossCompaction() {
        var queue = Queue(retries: 0, limit: 1000)
        _ = queue.connected()
        var acknowledged: [String] = []
        for index in 0..<300 { _ = queue.enqueue("e\(index)") }
        for sequence in 0..<300 {
            for action in queue.acknowledged(sequence: sequence) {
                if case .acknowledged(let emit) = action { acknowledged.append(emit) }
            }
            if sequence % 50 == 0 { _ = queue.enqueue("late\(sequence)") }
        }
        #expect(acknowledged == (0..<300).map { "e\($0)" })
        #expect(queue.head?.emit == "late0")
        #expect(queue.count == 6)
        #expect(queue.removeAll() == ["late0", "late50", "late100", "late150", "late200", "late250"])
        #expect(queue.count == 0)
    }
}
