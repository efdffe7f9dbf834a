import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Connection loss against a real python-socketio server: restart and heartbeat timeout.
@Suite(.serialized) struct SocketIOReconnectLoopbackTests {
    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func serverRestartReconnectsAndRejoinsEveryNamespaceWithItsAuth(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let first = try await TestServer.start("sio_server.py", arguments: flavor.serverArguments)
        let port = first.port
        let queue = DispatchQueue(label: "sio-reconnect")
        var config: SocketIOClientConfiguration = [
            .handleQueue(queue), .reconnects(true), .reconnectAttempts(-1),
            .reconnectWait(1), .reconnectWaitMax(1), .randomizationFactor(0),
        ]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
        defer { manager.disconnect() }
        let root = manager.defaultSocket
        let admin = manager.socket(forNamespace: "/admin")

        let rootUp = EventWaiter(root, clientEvent: .connect)
        root.connect(withPayload: ["token": "root-token"])
        #expect(await rootUp.value() != nil)
        let adminUp = EventWaiter(admin, clientEvent: .connect)
        admin.connect(withPayload: ["token": "admin-secret"])
        #expect(await adminUp.value() != nil)

        let reconnecting = EventWaiter(root, clientEvent: .reconnect)
        let attempt = EventWaiter(admin, clientEvent: .reconnectAttempt)
        first.stop()
        let reason = await reconnecting.value()
        #expect(reason?.first is String)
        // The manager tells its sockets one after the other on handleQueue (as upstream's
        // `tryReconnect`): once the admin socket's attempt is reported, both are connecting.
        #expect(await attempt.value()?.first as? Int == -1)
        #expect(root.status == .connecting && admin.status == .connecting)

        let rootBack = EventWaiter(root, clientEvent: .connect)
        let adminBack = EventWaiter(admin, clientEvent: .connect)
        let second = try await TestServer.start("sio_server.py", arguments: flavor.serverArguments + ["--port", "\(port)"])
        defer { second.stop() }
        #expect(await rootBack.value(timeout: 15) != nil)
        #expect(await adminBack.value(timeout: 15) != nil)
        #expect(manager.status == .connected)

        // Both namespaces rejoined with the auth payload they first connected with.
        let recorder = Recorder<[Any]>()
        admin.emitWithAck("auth_seen").timingOut(after: 5) { recorder.append($0) }
        root.emitWithAck("auth_seen").timingOut(after: 5) { recorder.append($0) }
        #expect(await recorder.wait(forCount: 2))
        let tokens = recorder.values.compactMap { ($0.first as? [String: Any])?["token"] as? String }
        #expect(Set(tokens) == ["admin-secret", "root-token"])
    }

    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func silentServerCausesPingTimeout(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let harness = try await LoopbackHarness(mode, flavor, serverArguments: ["--ping-interval", "1", "--ping-timeout", "1"])
        defer {
            harness.server.signal(SIGCONT)
            harness.stop()
        }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)
        let pinged = EventWaiter(socket, clientEvent: .ping)
        #expect(await pinged.value(timeout: 3) != nil)

        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        harness.server.signal(SIGSTOP)
        #expect(await disconnected.value(timeout: 6)?.first as? String == "Ping timeout")
        #expect(socket.status == .disconnected)
    }
}
