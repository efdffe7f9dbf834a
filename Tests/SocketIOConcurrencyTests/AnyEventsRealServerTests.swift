import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// `anyEvents()` (every incoming event) and `onAnyOutgoing` (every event written) against
/// python-socketio (`conc_server.py`) and the reference server (socket.io 4.8), over polling,
/// WebSocket and the upgrade.
@Suite(.serialized) struct AnyEventsRealServerTests {
    typealias Mode = AuthProviderRealServerTests.Mode

    func exchange(port: Int, mode: Mode, send: String, receive: String) async throws {
        var config: SocketIOClientConfiguration = [
            .log(false), .reconnects(false), .handleQueue(DispatchQueue(label: "AnyEventsRealServerTests")),
        ]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let outgoing = Collector<String>()
        socket.onAnyOutgoing { event in outgoing.append(event.event) }
        try await socket.connect(timeout: 5)

        let incoming = Collector<SocketIOClient.IncomingEvent>()
        let first = socket.anyEvents()
        let second = socket.anyEvents()  // any number of catch-all streams at once
        let secondCount = Collector<Int>()
        let listeners = [
            Task { for try await event in first { incoming.append(event) } },
            Task { for try await _ in second { secondCount.append(1) } },
        ]
        defer { for listener in listeners { listener.cancel() } }
        try await waitUntil { socket.handlers.count >= 4 }
        for index in 1...3 {
            await socket.emit(send, "any-\(index)")
        }
        // The outgoing report runs on handleQueue after the emit's own completion, so the third
        // may still be queued when the emit returns (a make test run saw two): wait for it too.
        try await waitUntil(seconds: 5) { incoming.all.count >= 3 && secondCount.all.count >= 3 && outgoing.all.count >= 3 }
        #expect(incoming.all.map(\.name) == [receive, receive, receive])
        // python-socketio sends {"id", "message"}; socket.io 4.8 with recovery appends its offset.
        let texts = incoming.all.map { $0.payload.stringValue ?? $0.payload["message"]?.stringValue ?? $0.payload[0]?.stringValue }
        #expect(texts == ["any-1", "any-2", "any-3"])
        #expect(outgoing.all == [send, send, send])
    }

    @Test(arguments: Mode.available)
    func pythonSocketIO(_ mode: Mode) async throws {
        let server = try await TestServer.start("conc_server.py")
        try await self.exchange(port: server.port, mode: mode, send: "message:send", receive: "message:new")
    }

    @Test(.enabled(if: NodeReference.isAvailable, "\(NodeReference.unavailableReason ?? "")"), arguments: Mode.available)
    func theReferenceServer(_ mode: Mode) async throws {
        let server = try await TestServer.startNode("node_recovery_server.js")
        defer { server.stop() }
        try await self.exchange(port: server.port, mode: mode, send: "record", receive: "recorded")
    }
}
