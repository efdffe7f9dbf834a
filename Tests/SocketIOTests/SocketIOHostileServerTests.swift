import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// A misbehaving Engine.IO server: clear errors, no crash, no hang.
@Suite(.serialized) struct SocketIOHostileServerTests {
    func manager(port: Int, path: String) -> SocketManager {
        SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(port)")!,
            config: [
                .handleQueue(DispatchQueue(label: "hostile")), .reconnects(false),
                .forcePolling(true), .path(path),
            ])
    }

    @Test(arguments: ["/bad-handshake/socket.io/", "/http-error/socket.io/"])
    func brokenSessionsReportErrorThenDisconnect(_ path: String) async throws {
        guard TransportMode.available.contains(.polling) else { return }
        let server = try await TestServer.start("sio_hostile_server.py")
        defer { server.stop() }
        let manager = self.manager(port: server.port, path: path)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let events = Recorder<(String, [Any])>()
        socket.on(clientEvent: .error) { data, _ in events.append(("error", data)) }
        socket.on(clientEvent: .disconnect) { data, _ in events.append(("disconnect", data)) }
        socket.connect()
        #expect(await events.wait(forCount: 2))
        #expect(events.values.map(\.0) == ["error", "disconnect"])
        let message = events.values.first?.1.first as? String ?? ""
        #expect(!message.isEmpty)
        #expect(socket.status == .disconnected)
    }

    @Test func malformedPacketsAreDroppedAndTheSessionGoesOn() async throws {
        guard TransportMode.available.contains(.polling) else { return }
        let server = try await TestServer.start("sio_hostile_server.py")
        defer { server.stop() }
        let manager = self.manager(port: server.port, path: "/bad-packets/socket.io/")
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let ok = EventWaiter(socket, "ok")
        let connected = EventWaiter(socket, clientEvent: .connect)
        socket.connect()
        #expect(await connected.value() != nil)
        #expect(await ok.value() != nil)
        #expect(socket.status == .connected)
    }
}
