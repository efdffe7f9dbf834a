import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// `.sendBuffer(n)`: emits made while the manager reconnects are kept and sent in order once
/// the socket is back, against python-socketio (`conc_server.py`) and the reference server
/// (socket.io 4.8), over polling, WebSocket and the upgrade.
@Suite(.serialized) struct SendBufferRealServerTests {
    typealias Mode = AuthProviderRealServerTests.Mode

    /// Loses the transport with `drop`, emits three events and one emitWithAck while the socket
    /// reconnects, and checks that the server got them in order after the rejoin.
    ///
    /// `echoed` reads an echo: the value, and the order in which the server received it when
    /// the echoes themselves may come in another order (python-socketio runs each event's
    /// handler as a task of its own, so their broadcasts can overtake each other; its
    /// `message:new` carries the id the handler took on arrival). `nil`: the echo order is the
    /// arrival order (the reference server handles events one after another).
    func keptAcrossAReconnection(
        port: Int, mode: Mode, event: String, echo: String,
        echoed: @escaping @Sendable (SocketIOClient.Payload) -> (value: String, arrival: Int?)?,
        drop: (SocketIOClient) async throws -> Void
    ) async throws {
        var config: SocketIOClientConfiguration = [
            .log(false), .reconnectWait(1), .randomizationFactor(0), .sendBuffer(10),
            .handleQueue(DispatchQueue(label: "SendBufferRealServerTests")),
        ]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 5)
        let seen = Collector<(value: String, arrival: Int?)>()
        let stream = socket.on(echo)
        let listener = Task {
            for try await payload in stream {
                if let echo = echoed(payload) { seen.append(echo) }
            }
        }
        defer { listener.cancel() }
        // Emitted from the status handler the moment the socket goes back to connecting (on
        // `handleQueue`), so they are certainly made while it reconnects.
        let keptWhileConnecting = Collector<Bool>()
        socket.on(clientEvent: .statusChange) { items, _ in
            guard let status = items.first as? SocketIOStatus, status == .connecting, keptWhileConnecting.all.isEmpty else { return }
            let notConnected = socket.status != .connected
            for index in 1...3 {
                socket.emit(event, "kept-\(index)", completion: nil)  // the callback form: returns at once
            }
            // Recorded after the three emits: the test emits `kept-4` once it sees this, so
            // recording it first let `kept-4` race the handler's `kept-2` and `kept-3`.
            keptWhileConnecting.append(notConnected)
        }

        try await drop(socket)
        try await waitUntil(seconds: 5) { !keptWhileConnecting.all.isEmpty }
        #expect(keptWhileConnecting.all == [true])
        // The async API too: kept if the socket is still reconnecting, sent at once otherwise.
        let ack = try await socket.emitWithAck(event, "kept-4", timeout: 10)
        #expect(socket.status == .connected)
        #expect(ack != .null)
        try await waitUntil(seconds: 5) { seen.all.count >= 4 }
        let arrived = seen.all.enumerated().sorted { ($0.element.arrival ?? $0.offset) < ($1.element.arrival ?? $1.offset) }
        #expect(arrived.map(\.element.value) == ["kept-1", "kept-2", "kept-3", "kept-4"], "echoes: \(seen.all)")
    }

    @Test(arguments: Mode.available)
    func pythonSocketIOGetsTheKeptEmitsInOrder(_ mode: Mode) async throws {
        let server = try await TestServer.start("conc_server.py")
        try await self.keptAcrossAReconnection(
            port: server.port, mode: mode, event: "message:send", echo: "message:new",
            echoed: { payload in payload["message"]?.stringValue.map { ($0, payload["id"]?.intValue) } },
            drop: { socket in
                let answer = try await socket.emitWithAck("drop_transport", timeout: 5)
                #expect(answer == "dropping")
            })
    }

    @Test(.enabled(if: NodeReference.isAvailable, "\(NodeReference.unavailableReason ?? "")"), arguments: Mode.available)
    func theReferenceServerGetsTheKeptEmitsInOrder(_ mode: Mode) async throws {
        let server = try await TestServer.startNode("node_recovery_server.js")
        defer { server.stop() }
        try await self.keptAcrossAReconnection(
            port: server.port, mode: mode, event: "record", echo: "recorded",
            echoed: { payload in (payload.stringValue ?? payload[0]?.stringValue).map { ($0, nil) } },
            drop: { socket in
                let answer = try await socket.emitWithAck("cut", "server", timeout: 5)
                #expect(answer == "cut")
            })
    }
}
