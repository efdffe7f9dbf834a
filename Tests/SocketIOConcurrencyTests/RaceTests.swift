import Dispatch
import Foundation
import SocketIOConcurrency
import Testing

/// Inputs that race (an ack against a cancellation, producers on many threads): every
/// operation ends exactly once, with one of the allowed outcomes, and nothing stays registered.
@Suite struct RaceTests {
    @Test func ackRacingCancellationEndsEachCallOnceAndLeavesNoHandler() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let rounds = 100
        var acked = 0
        var cancelled = 0
        let queue = socket.queue
        for round in 0..<rounds {
            // The id this round's emit gets if it is sent: a call cancelled before it sent its
            // EVENT registers no ack, so ids and rounds drift apart (answering `round` then
            // answered the next round's call with this round's items).
            let ackNumber = socket.nextAckID
            let request = Task { () throws(SocketIOClient.Error) -> SocketIOClient.Payload in
                try await socket.emitWithAck("race", round, timeout: 5)
            }
            try await socket.waitForAckRequests(round + 1)
            // Answer and cancel at about the same time, from two threads.
            queue.async { socket.handleAck(ackNumber, data: [round]) }
            DispatchQueue.global().async { request.cancel() }
            do {
                let ack = try await request.value
                #expect(ack == .int(round))
                acked += 1
            } catch {
                #expect(error as? SocketIOClient.Error == .cancelled)
                cancelled += 1
            }
            // This round's answer has run before the next round registers an ack (with the
            // same id, when this round's call registered none).
            await onQueue(queue) {}
        }
        #expect(acked + cancelled == rounds)
        #expect(socket.handlers.count == baseline)
        // However each call ended, it left no ack entry behind.
        #expect(socket.pendingAckCount == 0)
    }

    @Test func concurrentProducersLoseNothingWithAnUnboundedBuffer() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let perThread = 500
        let threads = 4
        let stream = socket.on("burst", bufferingPolicy: .unbounded)
        let consumer = Task { () throws(SocketIOClient.Error) -> Int in
            var sum = 0
            var count = 0
            for try await payload in stream {
                sum += payload.intValue ?? 0
                count += 1
                if count == perThread * threads { break }
            }
            return sum
        }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                socket.handleEvent("burst", data: [thread * perThread + index], isInternalMessage: false)
            }
        }
        let total = perThread * threads
        #expect(try await consumer.value == total * (total - 1) / 2)
    }

    @Test func manyConcurrentSubscriptionsAllUnregister() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let iterator = socket.on("fan-\(index % 5)").makeAsyncIterator()
                    _ = iterator  // subscribe, then end by releasing
                }
                group.addTask {
                    let statuses = socket.onStatusChange()
                    _ = statuses
                }
            }
            try await group.waitForAll()
        }
        #expect(socket.handlers.count == baseline)
    }
}
