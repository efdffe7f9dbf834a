import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// `.retries(n)` with `.ackTimeout(s)` against python-socketio (`conc_server.py`) and the
/// reference server (socket.io 4.8), over polling, WebSocket and the upgrade: an emit whose
/// first delivery is not acknowledged in time is delivered again, the caller hears once, and
/// the emits reach the server one at a time, in order.
@Suite(.serialized) struct RetryRealServerTests {
    typealias Mode = AuthProviderRealServerTests.Mode

    func manager(port: Int, _ mode: Mode, retries: Int, ackTimeout: Double) -> SocketManager {
        var config: SocketIOClientConfiguration = [
            .log(false), .reconnectWait(1), .randomizationFactor(0), .retries(retries), .ackTimeout(ackTimeout),
            .handleQueue(DispatchQueue(label: "RetryRealServerTests")),
        ]
        for option in mode.options { config.insert(option) }
        return SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
    }

    func deliveries(_ socket: SocketIOClient) async throws -> [String] {
        let payload = try await socket.emitWithAck("retry:deliveries", timeout: 5)
        return (payload.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Three emits (a callback-style ack, a plain emit, an awaited ack) whose first deliveries
    /// the server leaves unacknowledged; then one the server never acknowledges.
    func deliversOnceEachInOrder(port: Int, mode: Mode) async throws {
        let manager = self.manager(port: port, mode, retries: 2, ackTimeout: 0.4)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 5)

        let callbackAcks = Collector<String>()
        let written = Collector<String>()
        socket.emitWithAck("retry:flaky", "a").timingOut(after: 0) { items in
            callbackAcks.append(items.first as? String ?? "\(items)")
        }
        socket.emit("retry:flaky", "b", completion: { written.append("b") })
        // Queued behind the two: sent once "b" is done.
        let awaited = try await socket.emitWithAck("retry:flaky", "c", timeout: 0.4)
        #expect(awaited == "ok:c")
        #expect(callbackAcks.all == ["ok:a"])
        try await waitUntil(seconds: 5) { written.all == ["b"] }
        // Each twice on the wire (the first try went unacknowledged), never interleaved.
        #expect(try await self.deliveries(socket) == ["a", "a", "b", "b", "c", "c"])

        // Given up after 1 + 2 tries: the caller hears a timeout, once.
        do {
            let never = try await socket.emitWithAck("retry:never", "n", timeout: 0.3)
            Issue.record("acknowledged: \(never)")
        } catch .ackTimedOut(let event, _) {
            #expect(event == "retry:never")
        }
        #expect(try await self.deliveries(socket).suffix(3) == ["n", "n", "n"])
        #expect(socket.status == .connected)
    }

    @Test(arguments: Mode.available)
    func pythonSocketIO(_ mode: Mode) async throws {
        let server = try await TestServer.start("conc_server.py")
        defer { server.stop() }
        try await self.deliversOnceEachInOrder(port: server.port, mode: mode)
    }

    @Test(.enabled(if: NodeReference.isAvailable, "\(NodeReference.unavailableReason ?? "")"), arguments: Mode.available)
    func theReferenceServer(_ mode: Mode) async throws {
        let server = try await TestServer.startNode("node_recovery_server.js")
        defer { server.stop() }
        try await self.deliversOnceEachInOrder(port: server.port, mode: mode)
    }

    /// A try the lost transport interrupted is made again after the reconnection.
    @Test(arguments: Mode.available)
    func aTryCutByATransportLossIsMadeAgainAfterTheReconnection(_ mode: Mode) async throws {
        let server = try await TestServer.start("conc_server.py")
        defer { server.stop() }
        // No ack timeout: only the reconnection sends the try again.
        let manager = self.manager(port: server.port, mode, retries: 1, ackTimeout: 0)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 5)
        let acks = Collector<String>()
        // The server's first "cut" delivery is left unacknowledged (3 s), and the transport drops.
        socket.emitWithAck("retry:flaky", "cut").timingOut(after: 0) { items in
            acks.append(items.first as? String ?? "\(items)")
        }
        // Volatile: not queued behind the unacknowledged try.
        socket.volatile.emit("drop_transport")
        try await waitUntil(seconds: 10) { !acks.all.isEmpty }
        #expect(acks.all == ["ok:cut"])
        #expect(try await self.deliveries(socket) == ["cut", "cut"])
    }
}
