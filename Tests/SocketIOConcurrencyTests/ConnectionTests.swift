import Foundation
import SocketIOConcurrency
import Testing

/// `connect(withPayload:timeout:)` and `disconnect(timeout:)`.
@Suite struct ConnectionTests {
    @Test func connectWaitsForTheNamespaceAndPassesThePayload() async throws {
        let (_, socket) = makeRecordingSocket(connect: .connectSoon)
        let baseline = socket.handlers.count
        try await socket.connect(withPayload: ["token": "t", "n": 2], timeout: 2)
        #expect(socket.status == .connected)
        let payloads = socket.snapshot.connectPayloads
        #expect(payloads.count == 1)
        #expect(try SocketIOClient.Payload(socketValue: payloads.first as Any) == ["token": "t", "n": 2])
        #expect(socket.handlers.count == baseline)
    }

    @Test func connectReturnsAtOnceWhenAlreadyConnected() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        try await socket.connect(timeout: 0.5)
        #expect(socket.snapshot.connectPayloads.isEmpty)
    }

    @Test func connectTimesOutAbandonsTheAttemptAndLeavesNoHandler() async throws {
        let (_, socket) = makeRecordingSocket(connect: .silent)
        let baseline = socket.handlers.count
        await #expect(throws: SocketIOClient.Error.connectTimedOut(timeout: 0.05)) {
            try await socket.connect(timeout: 0.05)
        }
        #expect(socket.handlers.count == baseline)
        #expect(socket.snapshot.disconnectCalls == 1)
    }

    @Test func connectErrorCarriesTheServersMessage() async throws {
        let refusal = UncheckedItems([["message": "unauthorized", "data": ["reason": "token"]]])
        let (_, socket) = makeRecordingSocket(connect: .failSoon(refusal))
        await #expect(throws: SocketIOClient.Error.clientError(event: "connect", message: "unauthorized", source: .socketIO)) {
            try await socket.connect(timeout: 2)
        }
    }

    @Test func cancellingConnectThrowsCancelledAndLeavesNoHandler() async throws {
        let (_, socket) = makeRecordingSocket(connect: .silent)
        let baseline = socket.handlers.count
        let attempt = Task { () async throws -> Void in try await socket.connect(timeout: 5) }
        try await waitUntil { socket.snapshot.connectPayloads.count == 1 }
        attempt.cancel()
        await #expect(throws: SocketIOClient.Error.cancelled) { try await attempt.value }
        #expect(socket.handlers.count == baseline)
    }

    @Test func connectInAnAlreadyCancelledTaskDoesNothing() async throws {
        let (_, socket) = makeRecordingSocket(connect: .connectSoon)
        let attempt = Task { () async throws -> Void in
            withUnsafeCurrentTask { $0?.cancel() }
            try await socket.connect(timeout: 1)
        }
        await #expect(throws: SocketIOClient.Error.cancelled) { try await attempt.value }
        #expect(socket.snapshot.connectPayloads.isEmpty)
    }

    @Test func disconnectWaitsForConfirmation() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .confirm)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        try await socket.disconnect(timeout: 1)
        #expect(socket.status == .disconnected)
        #expect(socket.snapshot.disconnectCalls == 1)
        #expect(socket.handlers.count == baseline)
    }

    @Test func disconnectConfirmedLaterByTheDisconnectEvent() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let queue = socket.queue
        queue.asyncAfter(deadline: .now() + 0.05) { socket.didDisconnect(reason: "Got Disconnect") }
        try await socket.disconnect(timeout: 2)
        #expect(socket.status == .disconnected)
    }

    @Test func disconnectConfirmedByTheStatusFallback() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let queue = socket.queue
        queue.asyncAfter(deadline: .now() + 0.05) {
            // A status change to .disconnected without a `.disconnect` event.
            socket.handleClientEvent(.statusChange, data: [SocketIOStatus.disconnected, SocketIOStatus.disconnected.rawValue])
        }
        try await socket.disconnect(timeout: 2)
        #expect(socket.handlers.count == baseline)
    }

    @Test func disconnectTimesOutWhenNothingConfirms() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        await #expect(throws: SocketIOClient.Error.disconnectTimedOut(timeout: 0.05)) {
            try await socket.disconnect(timeout: 0.05)
        }
        #expect(socket.handlers.count == baseline)
    }

    @Test func disconnectReturnsAtOnceWhenNotConnected() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        try await socket.disconnect(timeout: 0.05)
        #expect(socket.snapshot.disconnectCalls == 0)
    }

    @Test func cancellingDisconnectThrowsCancelledAndLeavesNoHandler() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let attempt = Task { () async throws -> Void in try await socket.disconnect(timeout: 5) }
        try await waitUntil { socket.snapshot.disconnectCalls == 1 }
        attempt.cancel()
        await #expect(throws: SocketIOClient.Error.cancelled) { try await attempt.value }
        #expect(socket.handlers.count == baseline)
    }
}
