import Dispatch
import Foundation
import RealtimeTime
import SocketIO
import TestSupport
import Testing

/// A python-socketio 4.6 (Socket.IO 2.x, Engine.IO 3) server from `.venv-sio2` and a
/// `.version(.two)` manager pointed at it.
struct VersionTwoHarness {
    let server: TestServer
    let manager: SocketManager

    /// `.venv-sio2/bin/python`, made by `scripts/bootstrap.sh`.
    static var python: String {
        TestEnvironment.repositoryRoot.appendingPathComponent(".venv-sio2/bin/python").path
    }

    init(_ mode: TransportMode, serverArguments: [String] = []) async throws {
        self.server = try await TestServer.start("sio2_server.py", python: Self.python, arguments: serverArguments)
        var config: SocketIOClientConfiguration = [
            .handleQueue(DispatchQueue(label: "sio2-loopback")),
            .reconnects(false), .version(.two),
        ]
        for option in mode.options { config.insert(option) }
        self.manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(self.server.port)")!, config: config)
    }

    /// Connects `socket` and returns the `connect` items (`nil` on timeout).
    func connect(_ socket: SocketIOClient) async -> [Any]? {
        let connected = EventWaiter(socket, clientEvent: .connect)
        socket.connect()
        return await connected.value(timeout: 10)
    }

    /// Emits with an ack and waits for the answer.
    func ack(_ socket: SocketIOClient, _ event: String, _ items: [SocketData]) async -> [Any]? {
        let recorder = Recorder<[Any]>()
        socket.emitWithAck(event, with: items).timingOut(after: 5) { recorder.append($0) }
        guard await recorder.wait(forCount: 1, timeout: 10) else { return nil }
        return recorder.values.first
    }

    func stop() {
        self.manager.disconnect()
        self.server.stop()
    }
}

/// `.version(.two)` against a real Socket.IO 2.x server, for each transport mode.
@Suite(.serialized) struct SocketIOVersionTwoLoopbackTests {
    /// HTTPS / WSS to a 2.x server: refused while its CA is untrusted, connected with the CA
    /// trusted through `.security`, then an ack round trip over the encrypted session.
    @Test(.needsNativeTLS, arguments: TransportMode.available)
    func overTLSWithVerification(_ mode: TransportMode) async throws {
        let certificates = try await TestCertificates.makeOffThePool()
        let server = try await TestServer.start(
            "sio2_server.py", python: VersionTwoHarness.python,
            arguments: [
                "--cert", certificates.file("localhost.pem").path, "--key", certificates.file("localhost.key").path,
            ])
        defer { server.stop() }
        let queue = DispatchQueue(label: "sio2-tls")
        func manager(_ extra: SocketIOClientConfiguration) -> SocketManager {
            var config: SocketIOClientConfiguration = [.handleQueue(queue), .reconnects(false), .version(.two)]
            for option in mode.options + extra { config.insert(option) }
            return SocketManager(socketURL: URL(string: "https://127.0.0.1:\(server.port)")!, config: config)
        }

        let untrusted = manager([])
        defer { untrusted.disconnect() }
        let refused = EventWaiter(untrusted.defaultSocket, clientEvent: .error)
        untrusted.defaultSocket.connect()
        #expect(await refused.value() != nil)
        #expect(untrusted.defaultSocket.status != .connected)

        let trusted = manager([.security(PEMCertificatePinning(certificates: [certificates.caCertificatePEM]))])
        defer { trusted.disconnect() }
        let socket = trusted.defaultSocket
        let connected = EventWaiter(socket, clientEvent: .connect)
        socket.connect()
        #expect(await connected.value() != nil)
        let recorder = Recorder<[Any]>()
        socket.emitWithAck("echo", with: ["secure", 2]).timingOut(after: 5) { recorder.append($0) }
        #expect(await recorder.wait(forCount: 1, timeout: 10))
        #expect(recorder.values.first?.first as? String == "secure")
        #expect(recorder.values.first?.last as? Int == 2)
    }

    @Test(arguments: TransportMode.available)
    func connectEmitAckBinaryNamespaceAndDisconnect(_ mode: TransportMode) async throws {
        let harness = try await VersionTwoHarness(mode)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket

        let welcome = EventWaiter(socket, "welcome")
        let upgraded = EventWaiter(socket, clientEvent: .websocketUpgrade)
        let connect = try #require(await harness.connect(socket))
        #expect(connect.first as? String == "/")
        #expect(socket.status == .connected)
        #expect(harness.manager.status == .connected)
        let welcomed = try #require(await welcome.value())
        #expect((welcomed.first as? [String: Any])?["namespace"] as? String == "/")
        #expect(harness.manager.engine?.version == .two)

        switch mode {
        case .upgrade:
            #expect(await upgraded.value() != nil)
            #expect(harness.manager.engine?.polling == false)
        case .polling:
            #expect(harness.manager.engine?.polling == true)
        case .webSocket:
            #expect(harness.manager.engine?.polling == false)
        }

        // Emit + ack, and the server's echo event.
        let echo = EventWaiter(socket, "echo")
        let acked = try #require(await harness.ack(socket, "echo", ["text", 42, ["k": true]]))
        #expect(acked.count == 3)
        #expect(acked[0] as? String == "text")
        #expect(acked[1] as? Int == 42)
        #expect((acked[2] as? [String: Any])?["k"] as? Bool == true)
        let echoed = try #require(await echo.value())
        #expect(echoed.first as? String == "text")

        // Binary both ways: attachments out (base64 over polling, type-prefixed frames over
        // WebSocket) and in.
        let binaryEcho = try #require(await harness.ack(socket, "echo", [Data([0, 1, 254, 255]), ["blob": Data([7])]]))
        #expect(binaryEcho.first as? Data == Data([0, 1, 254, 255]))
        #expect((binaryEcho.last as? [String: Any])?["blob"] as? Data == Data([7]))
        let binaryAck = try #require(await harness.ack(socket, "binary_ack", []))
        #expect(binaryAck.first as? Data == Data([0, 1, 2]))
        #expect((binaryAck.last as? [String: Any])?["nested"] as? Data == Data([0xFF]))

        // A second namespace over the same engine.
        let admin = harness.manager.socket(forNamespace: "/admin")
        let adminWelcome = EventWaiter(admin, "welcome")
        let adminConnect = try #require(await harness.connect(admin))
        #expect(adminConnect.first as? String == "/admin")
        #expect((try #require(await adminWelcome.value()).first as? [String: Any])?["namespace"] as? String == "/admin")
        let adminAck = try #require(await harness.ack(admin, "echo", ["admin"]))
        #expect(adminAck.first as? String == "admin")

        // Leaving a namespace, then disconnecting: the server sees both.
        admin.disconnect()
        _ = try await harness.server.waitForLine { $0 == "DISCONNECT /admin" }
        #expect(admin.status == .disconnected)
        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        socket.disconnect()
        #expect(await disconnected.value() != nil)
        #expect(socket.status == .disconnected)
        _ = try await harness.server.waitForLine { $0 == "DISCONNECT /" }
    }

    /// Engine.IO 3 servers expect the client to ping every pingInterval (0.5 s here) and
    /// drop a client that sends nothing for pingTimeout (WebSocket) or no ping for
    /// interval + grace (polling). The pingTimeout is longer than the interval (as
    /// python-engineio 3's defaults, 25 s and 60 s), so a client that only pings at its pong
    /// deadline would send one ping in three seconds: the server counts them.
    @Test(arguments: TransportMode.available)
    func clientPingsEveryIntervalAndTheSessionStaysAlive(_ mode: TransportMode) async throws {
        let harness = try await VersionTwoHarness(mode, serverArguments: ["--ping-interval", "0.5", "--ping-timeout", "3", "--ping-grace", "1"])
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        let pingEvents = Recorder<Bool>()
        socket.on(clientEvent: .ping) { _, _ in pingEvents.append(true) }
        let pongEvents = Recorder<Bool>()
        socket.on(clientEvent: .pong) { _, _ in pongEvents.append(true) }
        _ = try #require(await harness.connect(socket))

        try await Task.sleep(.seconds(3))
        let reason = await disconnected.value(timeout: 0)
        #expect(reason == nil, "disconnected: \(String(describing: reason))")
        #expect(socket.status == .connected)
        #expect(!harness.server.lines.contains("DISCONNECT /"))
        let stats = try #require(await harness.ack(socket, "ping_stats", []).flatMap { $0.first as? [String: Any] })
        let count = try #require(stats["count"] as? Int)
        // About 6 are due; a client pinging only at its pong deadline sends 1. 3 leaves room
        // for a loaded machine and still tells the two apart.
        #expect(count >= 3, "pings in 3 s: \(count)")
        let maxGap = try #require(stats["max_gap"] as? Double)
        #expect(maxGap < 1.5, "longest gap between pings: \(maxGap) s")
        // Each ping the client sent was reported as a `.ping` client event, and the server's
        // answers as `.pong` (upstream's socket.io 2 behaviour).
        #expect(pingEvents.count >= count)
        #expect(pongEvents.count >= count - 1, "pongs: \(pongEvents.count) for \(count) pings")
    }

    /// A 2.x server that stops answering: no pong within pingTimeout after the client's ping
    /// ends the session with "Ping timeout".
    @Test(arguments: TransportMode.available)
    func silentServerCausesPingTimeout(_ mode: TransportMode) async throws {
        let harness = try await VersionTwoHarness(mode, serverArguments: ["--ping-interval", "0.5", "--ping-timeout", "1"])
        defer {
            harness.server.signal(SIGCONT)
            harness.stop()
        }
        let socket = harness.manager.defaultSocket
        _ = try #require(await harness.connect(socket))
        if mode == .upgrade {
            // Stop the server only once the upgrade is over, so the timeout is the heartbeat's.
            let deadline = MonotonicInstant.now + .seconds(10)
            while harness.manager.engine?.polling != false && MonotonicInstant.now < deadline {
                try await Task.sleep(.milliseconds(10))
            }
            #expect(harness.manager.engine?.polling == false)
        }

        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        harness.server.signal(SIGSTOP)
        #expect(await disconnected.value(timeout: 6)?.first as? String == "Ping timeout")
        #expect(socket.status == .disconnected)
    }
}
