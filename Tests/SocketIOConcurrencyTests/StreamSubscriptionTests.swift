import Foundation
import SocketIOConcurrency
import Testing

/// `on(_:)`, `on(clientEvent:)` and `onStatusChange()` against a socket driven through its
/// public `handle*` / `did*` entry points.
@Suite struct StreamSubscriptionTests {
    @Test func singleItemYieldsTheItemAndSeveralYieldAnArray() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        var iterator = socket.on("message:new").makeAsyncIterator()
        socket.handleEvent("message:new", data: ["hello"], isInternalMessage: false)
        socket.handleEvent("message:new", data: ["a", 1, true], isInternalMessage: false)
        socket.handleEvent("other", data: ["ignored"], isInternalMessage: false)
        socket.handleEvent("message:new", data: [["text": "hi"]], isInternalMessage: false)
        #expect(try await iterator.next() == .string("hello"))
        #expect(try await iterator.next() == ["a", 1, true])
        #expect(try await iterator.next() == ["text": "hi"])
    }

    @Test func breakingOutRemovesTheHandlersExactlyOnce() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let unrelated = socket.on("message:new") { _, _ in }
        let baseline = socket.handlers.map(\.id)
        let feeder = Task {
            try await waitUntil { socket.handlers.count == baseline.count + 3 }
            socket.handleEvent("message:new", data: [1], isInternalMessage: false)
        }
        for try await payload in socket.on("message:new") {
            #expect(payload == 1)
            #expect(socket.handlers.count == baseline.count + 3)
            break
        }
        try await feeder.value
        // The loop released the stream and its iterator: only the app's own handler is left.
        #expect(socket.handlers.map(\.id) == baseline)
        #expect(socket.handlers.contains { $0.id == unrelated })
    }

    @Test func releasingTheStreamRemovesItsHandlers() async throws {
        let (_, socket) = makeRecordingSocket()
        let baseline = socket.handlers.map(\.id)
        do {
            let stream = socket.on("message:new")
            #expect(socket.handlers.count == baseline.count + 3)
            _ = stream
        }
        #expect(socket.handlers.map(\.id) == baseline)
    }

    @Test func cancellingTheConsumingTaskRemovesItsHandlers() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let received = Collector<SocketIOClient.Payload>()
        let consumer = Task {
            for try await payload in socket.on("message:new") { received.append(payload) }
        }
        try await waitUntil { socket.handlers.count == baseline + 3 }
        socket.handleEvent("message:new", data: ["first"], isInternalMessage: false)
        try await waitUntil { received.all.count == 1 }
        consumer.cancel()
        try await consumer.value
        #expect(socket.handlers.count == baseline)
        #expect(received.all == ["first"])
    }

    @Test func disconnectEndsTheStreamWithTypedReasonAndRemovesHandlers() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let stream = socket.on("message:new")
        socket.handleEvent("message:new", data: ["before"], isInternalMessage: false)
        socket.didDisconnect(reason: "Ping timeout")
        var received: [SocketIOClient.Payload] = []
        await #expect(throws: SocketIOClient.Error.disconnected(event: "message:new", reason: .pingTimeout)) {
            for try await payload in stream { received.append(payload) }
        }
        #expect(received == ["before"])
        #expect(socket.handlers.count == baseline)
    }

    @Test func unconvertibleItemsEndTheStreamWithTheConversionError() async throws {
        final class Opaque {}
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        var iterator = socket.on("odd").makeAsyncIterator()
        socket.handleEvent("odd", data: [Opaque()], isInternalMessage: false)
        await #expect(throws: SocketIOClient.Error.unsupportedPayloadType(typeName: "Opaque")) {
            _ = try await iterator.next()
        }
        #expect(socket.handlers.count == baseline)
    }

    @Test func slowConsumerGetsEverythingByDefaultOrTheNewestWhenAsked() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let newestStream = socket.on("tick", bufferingPolicy: .bufferingNewest(100))
        var newest = newestStream.makeAsyncIterator()
        var everything = socket.on("tick").makeAsyncIterator()  // the default drops nothing
        for tick in 0..<150 { socket.handleEvent("tick", data: [tick], isInternalMessage: false) }
        #expect(try await newest.next() == 50)  // the newest 100, on request
        #expect(newestStream.droppedCount == 50)
        for tick in 0..<150 { #expect(try await everything.next() == .int(tick)) }
    }

    @Test func clientEventStreamTypesLifecycleEvents() async throws {
        let (_, socket) = makeRecordingSocket()
        let baseline = socket.handlers.count
        var connects = socket.on(clientEvent: .connect).makeAsyncIterator()
        var disconnects = socket.on(clientEvent: .disconnect).makeAsyncIterator()
        var attempts = socket.on(clientEvent: .reconnectAttempt).makeAsyncIterator()
        #expect(socket.handlers.count == baseline + 3)
        socket.didConnect(toNamespace: "/", payload: ["sid": "s1"])
        socket.handleClientEvent(.reconnectAttempt, data: [-1])
        socket.didDisconnect(reason: "Got Disconnect")
        #expect(try await connects.next() == .connectWithPayload(payload: ["sid": "s1"]))
        #expect(try await attempts.next() == .reconnectAttempt(attempt: .unlimited(raw: -1)))
        #expect(try await disconnects.next() == .disconnect(reason: .gotDisconnect))
        // A lifecycle stream outlives the disconnection: the next connect is delivered too.
        socket.didConnect(toNamespace: "/", payload: nil)
        #expect(try await connects.next() == .connect)
    }

    @Test func clientEventStreamRemovesItsOneHandlerWhenCancelled() async throws {
        let (_, socket) = makeRecordingSocket()
        let baseline = socket.handlers.count
        let consumer = Task {
            for try await _ in socket.on(clientEvent: .ping) {}
        }
        try await waitUntil { socket.handlers.count == baseline + 1 }
        consumer.cancel()
        try await consumer.value
        #expect(socket.handlers.count == baseline)
    }

    @Test func statusStreamYieldsStatusesInOrder() async throws {
        let (_, socket) = makeRecordingSocket()
        let baseline = socket.handlers.count
        let statuses = Task { () throws(SocketIOClient.Error) -> [SocketIOStatus] in
            var seen: [SocketIOStatus] = []
            for try await status in socket.onStatusChange() {
                seen.append(status)
                if status == .disconnected { break }
            }
            return seen
        }
        try await waitUntil { socket.handlers.count == baseline + 1 }
        socket.didConnect(toNamespace: "/", payload: nil)
        socket.didDisconnect(reason: "Namespace leave")
        #expect(try await statuses.value == [.connected, .disconnected])
        try await waitUntil { socket.handlers.count == baseline }
    }
}
