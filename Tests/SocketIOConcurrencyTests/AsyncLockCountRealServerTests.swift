import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

@testable import SocketIO

/// Acquisitions of the session's one lock (its core's mutex, counted by the lock domain in
/// debug builds) on SocketIOConcurrency's public API, over WebSocket against python-socketio:
/// issue 34 asks for at most 2 per inbound message and per emit.
/// - `emitWithAck`'s round trip takes 4: the emit's section (the status checked, the ack
///   registered and counted as awaited, the frames written) and the writer's finished send;
///   the answer's section (read, routed, the ack resolved and no longer awaited) and the
///   turn's end. The ceiling allows a quarter of a section more per ack on average, for a
///   write that finds the engine's actions being performed.
/// - an event to a `for await` takes 2.
///
/// `SocketIOLockCountTests` counts the same on the package entry points underneath.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct AsyncLockCountRealServerTests {
    static let count = 200

    @Test(
        .countsLockSections,
        .needsDefaultWebSocket)
    func publicEmitWithAckAndForAwait() async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let config: SocketIOClientConfiguration = [
            .log(false), .reconnects(false), .forceWebsockets(true),
            .handleQueue(DispatchQueue(label: "AsyncLockCountRealServerTests")),
        ]
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 10)
        let domain = manager.lockDomain
        // Warm-up: the first ack settles what connecting left behind.
        #expect(try await socket.emitWithAck("ack_me", "ready", timeout: 10) == "ready")

        let beforeAcks = domain.acquisitions
        for index in 0..<Self.count {
            #expect(try await socket.emitWithAck("ack_me", index, timeout: 10) == .int(index))
        }
        let perAck = Double(domain.acquisitions - beforeAcks) / Double(Self.count)

        let items = socket.on("flood_item")
        // The flood's request is upstream's emit: its 2 sections are allowed on top.
        let beforeEvents = domain.acquisitions
        socket.emit("flood", with: [Self.count], completion: nil)
        var received = 0
        for try await _ in items {
            received += 1
            if received == Self.count { break }
        }
        let events = domain.acquisitions - beforeEvents
        print(
            "session lock acquisitions on the async API: \(perAck) per emitWithAck round trip, \(events) for \(Self.count) events and their request")
        #expect(perAck <= 4.25)
        #expect(events <= 2 * Self.count + 4)
    }
}
