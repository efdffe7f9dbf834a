import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SocketIO

/// `SocketEngine.parseEngineMessage(_:)` (public, `open`) handles every message kind as
/// socket.io-client-swift 16.x's does (`SocketEngine.parseEngineMessage`, `handleBase64`,
/// `checkAndHandleEngineError`); EngineIOProtocolTests' `EngineTextMessageTests` has the
/// classification of every message kind.
@Suite(TestTimeLimit.minutes(1)) struct ParseEngineMessageTests {
    func engine(_ client: RecordingEngineClient, _ extra: SocketIOClientConfiguration = []) -> SocketEngine {
        SocketEngine(client: client, url: URL(string: "http://127.0.0.1:1")!, config: extra)
    }

    @Test func directCallsReachTheClientAsUpstreams() {
        let client = RecordingEngineClient()
        let engine = self.engine(client)
        engine.parseEngineMessage(#"42["chat","hi"]"#)
        engine.parseEngineMessage("bAAEC")
        engine.parseEngineMessage("bAA\nEC")
        engine.parseEngineMessage("bA!")
        engine.parseEngineMessage("garbage")
        engine.parseEngineMessage(#"{"code":1}"#)
        engine.parseEngineMessage("2")
        #expect(
            client.events.values == [
                #"message 2["chat","hi"]"#, "binary 3", "binary 3",
                "error Got unknown error from server garbage",
            ])

        // A server error object: `didError(reason:)`, the error then the close.
        engine.parseEngineMessage(#"{"code":1,"message":"Session ID unknown"}"#)
        #expect(Array(client.events.values.dropFirst(4)) == ["error Session ID unknown", "close Session ID unknown"])
    }

    @Test func versionTwoBinaryTakesTheB4Prefix() {
        let client = RecordingEngineClient()
        let engine = self.engine(client, [.version(.two)])
        engine.parseEngineMessage("b4AAEC")
        #expect(client.events.values == ["binary 3"])
    }

    /// Every message the server sends passes through the open method (`4` + the message), so
    /// a subclass sees them over the network, as upstream's do.
    @Test(arguments: TransportMode.available)
    func overrideSeesNetworkMessages(_ mode: TransportMode) async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        var config: SocketIOClientConfiguration = [.handleQueue(DispatchQueue(label: "override")), .reconnects(false)]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
        let engine = InspectingEngine(client: manager, url: manager.socketURL, config: manager.config)
        manager.engine = engine
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let welcome = EventWaiter(socket, "welcome")
        socket.connect()
        #expect(await welcome.value() != nil)
        #expect(engine.seen.values.contains(where: { $0.hasPrefix(#"42["welcome","#) }))
        #expect(engine.seen.values.contains(where: { $0.hasPrefix("40") }))
    }

    /// A server error object instead of a polling payload: an `error` client event with its
    /// message, then the disconnect, as upstream.
    @Test func serverErrorObjectOverPolling() async throws {
        try await self.serverErrorObjectOverTheNetwork("/engine-error/socket.io/", .polling, "Session ID unknown")
    }

    /// The same instead of a WebSocket message (reported as a skip where this build has no
    /// WebSocket transport, not as a pass).
    @Test(
        .enabled(
            if: TransportMode.available.contains(.webSocket),
            "REALTIME_NO_NATIVE_STACK: no WebSocket transport in this build"))
    func serverErrorObjectOverWebSocket() async throws {
        try await self.serverErrorObjectOverTheNetwork("/engine-error-ws/socket.io/", .webSocket, "Bad request")
    }

    private func serverErrorObjectOverTheNetwork(_ path: String, _ mode: TransportMode, _ reason: String) async throws {
        let server = try await TestServer.start("sio_hostile_server.py")
        defer { server.stop() }
        var config: SocketIOClientConfiguration = [
            .handleQueue(DispatchQueue(label: "engine-error")),
            .reconnects(false), .path(path),
        ]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let events = Recorder<String>()
        socket.on(clientEvent: .connect) { _, _ in events.append("connect") }
        socket.on(clientEvent: .error) { data, _ in events.append("error \(data.first as? String ?? "")") }
        socket.on(clientEvent: .disconnect) { data, _ in events.append("disconnect \(data.first as? String ?? "")") }
        socket.connect()
        #expect(await events.wait(forCount: 3))
        #expect(events.values == ["connect", "error \(reason)", "disconnect \(reason)"])
        #expect(socket.status == .disconnected)
    }
}

/// A `SocketEngineClient` that records what the engine reports, in order.
final class RecordingEngineClient: SocketEngineClient, @unchecked Sendable {
    // `@unchecked Sendable`: `events` is a locked recorder.
    let events = Recorder<String>()

    func engineDidError(reason: String) { self.events.append("error \(reason)") }
    func engineDidClose(reason: String) { self.events.append("close \(reason)") }
    func engineDidOpen(reason: String) { self.events.append("open") }
    func engineDidReceivePing() {}
    func engineDidReceivePong() {}
    func engineDidSendPing() {}
    func engineDidSendPong() {}
    func parseEngineMessage(_ msg: String) { self.events.append("message \(msg)") }
    func parseEngineBinaryData(_ data: Data) { self.events.append("binary \(data.count)") }
    func engineDidWebsocketUpgrade(headers: [String: String]) {}
}

/// A subclass that records every message passed to `parseEngineMessage(_:)`.
final class InspectingEngine: SocketEngine, @unchecked Sendable {
    // `@unchecked Sendable`: `seen` is a locked recorder; the rest is the engine's.
    let seen = Recorder<String>()

    override func parseEngineMessage(_ message: String) {
        self.seen.append(message)
        super.parseEngineMessage(message)
    }
}
