import Foundation
import RealtimeTime
import SocketIOConcurrency
import Testing

/// `emit(_:_:)`, `emit(_:with:)`, `emitWithAck(_:_:timeout:)`, `emitWithAck(_:with:timeout:)`.
@Suite struct EmitTests {
    @Test func emitForwardsEventAndItemsAndReturnsAfterTheWrite() async {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        await socket.emit("hello", "one", 2)
        await socket.emit("array", with: ["x"])
        let emits = socket.snapshot.emits
        #expect(emits.map(\.event) == ["hello", "array"])
        #expect(emits[0].items[0] as? String == "one")
        #expect(emits[0].items[1] as? Int == 2)
        #expect(socket.handlers.count == baseline)
    }

    @Test func emitAcceptsAPayloadDirectly() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let payload: SocketIOClient.Payload = ["message": "hi", "attempt": 1, "ok": true]
        await socket.emit("message:send", payload)
        let item = try #require(socket.snapshot.emits.first?.items.first)
        #expect(item as? SocketIOClient.Payload == payload)
    }

    @Test func emitWhileNotConnectedReturnsAndReportsTheError() async throws {
        let (_, socket) = makeRecordingSocket()
        var errors = socket.on(clientEvent: .error).makeAsyncIterator()
        await socket.emit("late", 1)
        #expect(try await errors.next() == .error(.notConnected(event: "error")))
    }

    @Test func emitOfUnrepresentableItemsReturnsAndReportsTheError() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        var errors = socket.on(clientEvent: .error).makeAsyncIterator()
        await socket.emit("bad", PayloadTests.Failing())
        guard case .error(.invalidSocketData(let event, _))? = try await errors.next() else {
            Issue.record("expected invalidSocketData")
            return
        }
        #expect(event == "bad")
    }

    @Test func emitReturnsWhenTheSocketDisconnectsBeforeTheWriteCompletes() async throws {
        let (_, socket) = makeRecordingSocket(completesWrites: false)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let queue = socket.queue
        queue.asyncAfter(deadline: .now() + 0.05) { socket.didDisconnect(reason: "Socket Disconnected") }
        await socket.emit("stuck", 1)
        #expect(socket.handlers.count == baseline)
    }

    @Test func emitWithAckReturnsTheAckAsPayload() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        socket.answerAck(0, with: ["pong", 7])
        socket.answerAck(1, with: [["ok": true]])
        #expect(try await socket.emitWithAck("ping", "a", 1, timeout: 2) == ["pong", 7])
        #expect(try await socket.emitWithAck("ping", with: ["b"], timeout: 2) == ["ok": true])
        let requested = socket.snapshot.acksRequested
        #expect(requested.map(\.event) == ["ping", "ping"])
        #expect(requested[0].items.count == 2)
        #expect(socket.handlers.count == baseline)
    }

    @Test func emitWithAckTimesOutOnNoAck() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        await #expect(throws: SocketIOClient.Error.ackTimedOut(event: "silence", timeout: 0.05)) {
            try await socket.emitWithAck("silence", timeout: 0.05)
        }
        #expect(socket.handlers.count == baseline)
    }

    @Test func noAckSentinelMapsToAckTimedOut() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        socket.answerAck(0, with: ["NO ACK"])
        await #expect(throws: SocketIOClient.Error.ackTimedOut(event: "e", timeout: 2)) {
            try await socket.emitWithAck("e", timeout: 2)
        }
    }

    @Test func emitWithAckWhileNotConnectedThrowsAtOnce() async throws {
        let (_, socket) = makeRecordingSocket()
        let started = MonotonicInstant.now
        await #expect(throws: SocketIOClient.Error.notConnected(event: "message:send")) {
            try await socket.emitWithAck("message:send", "hello", timeout: 5)
        }
        #expect(MonotonicInstant.now - started < .seconds(1))
        #expect(socket.snapshot.acksRequested.isEmpty)
    }

    @Test func emitWithAckThrowsDisconnectedWhenTheSocketDropsFirst() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let queue = socket.queue
        queue.asyncAfter(deadline: .now() + 0.05) { socket.didDisconnect(reason: "Got Disconnect") }
        await #expect(throws: SocketIOClient.Error.disconnected(event: "wait", reason: .gotDisconnect)) {
            try await socket.emitWithAck("wait", timeout: 5)
        }
        #expect(socket.handlers.count == baseline)
    }

    @Test func emitWithAckOfUnrepresentableItemsThrowsInvalidSocketData() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        await #expect {
            try await socket.emitWithAck("bad", PayloadTests.Failing(), timeout: 1)
        } throws: { error in
            guard case .invalidSocketData(let event, _) = error as? SocketIOClient.Error else { return false }
            return event == "bad"
        }
        #expect(socket.handlers.count == baseline)
    }

    @Test func cancellingEmitWithAckThrowsCancelledAndLeavesNothingBehind() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let request = Task { () throws(SocketIOClient.Error) -> SocketIOClient.Payload in
            try await socket.emitWithAck("slow", timeout: 0.3)
        }
        try await socket.waitForAckRequests(1)
        request.cancel()
        await #expect(throws: SocketIOClient.Error.cancelled) { try await request.value }
        #expect(socket.handlers.count == baseline)
        // A late ack finds nothing to resume (no crash, no double resume).
        socket.answerAck(0, with: ["late"])
        try await Task.sleep(.milliseconds(50))
    }

    @Test func emitWithAckInAnAlreadyCancelledTaskEmitsNothing() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        let request = Task { () throws(SocketIOClient.Error) -> SocketIOClient.Payload in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await socket.emitWithAck("never", timeout: 1)
        }
        await #expect(throws: SocketIOClient.Error.cancelled) { try await request.value }
        #expect(socket.snapshot.acksRequested.isEmpty)
    }
}
