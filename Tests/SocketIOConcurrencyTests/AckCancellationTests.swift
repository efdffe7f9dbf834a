import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// `emitWithAck` leaves no ack entry (no callback) on the socket, however it ends; the
/// socket's one ack timer may fire once more, finding nothing, and is then gone.
@Suite(.serialized) struct AckCancellationTests {
    /// Against python-socketio: the server never answers `never_ack`; the task is cancelled
    /// after the emit was written, and the socket's ack table is empty again.
    @Test func cancellingAPendingEmitWithAckAfterTheWriteDropsTheAck() async throws {
        let harness = try await RealServerTests.Harness()
        let socket = harness.socket
        try await socket.connect()
        defer { socket.disconnect() }

        let pending = Task { try await socket.emitWithAck("never_ack", 1, timeout: 30) }
        try await waitUntil { socket.pendingAckCount == 1 }
        #expect(socket.hasAckTimer)
        // Writes go out in order: once this later write completed, the EVENT is on the wire.
        await socket.emit("message:send", "after")

        pending.cancel()
        let outcome = await pending.result
        #expect(throws: SocketIOClient.Error.cancelled) { try outcome.get() }
        #expect(socket.pendingAckCount == 0)
        // Lazy: the timer armed for the 30 s deadline stays.
        #expect(socket.hasAckTimer)

        // The socket goes on acking normally (ids keep counting). Its earlier deadline moves
        // the timer to 3 s; the answer leaves it there, and it fires once for nothing.
        let confirmation = try await socket.emitWithAck("message:confirm", "x", timeout: 3)
        #expect(confirmation["confirmed"] == true)
        #expect(socket.pendingAckCount == 0)
        #expect(await ProcessResources.eventually { !socket.hasAckTimer })
        #expect(socket.pendingAckCount == 0)
    }

    @Test func timedOutAndDisconnectedEmitWithAckDropTheAck() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)

        await #expect(throws: SocketIOClient.Error.ackTimedOut(event: "slow", timeout: 0.05)) {
            try await socket.emitWithAck("slow", timeout: 0.05)
        }
        #expect(socket.pendingAckCount == 0)

        let pending = Task { try await socket.emitWithAck("cut", timeout: 30) }
        try await waitUntil { socket.pendingAckCount == 1 }
        socket.queue.async { socket.didDisconnect(reason: "Socket Disconnected") }
        _ = await pending.result
        #expect(socket.pendingAckCount == 0)
        #expect(!socket.hasAckTimer)
    }
}
