import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// Code written against socket.io-client-swift 16.x (its README and common app patterns),
/// unchanged, compiled in Swift 6 mode and run against the test server.
@Suite(.serialized) struct UpstreamUsageTests {
    /// With the default transports the connect handler's emit races the polling-to-WebSocket
    /// upgrade; it once reached the server before `5` about 1 run in 4 (the server then
    /// dropped the session). `SocketEngineUpgradeOrderTests` pins that order deterministically.
    @Test func readmeExampleBuildsAndRuns() async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let queue = DispatchQueue(label: "upstream-usage")
        let done = Recorder<String>()

        // --- upstream README, with the handle queue and URL of this test ---
        let manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            config: [.log(false), .compress, .handleQueue(queue), .reconnects(false)])
        let socket = manager.defaultSocket

        socket.on(clientEvent: .connect) { data, ack in
            done.append("connected")
            socket.emit("echo", 2.5)
        }

        socket.on("echo") { data, ack in
            guard let cur = data[0] as? Double else { return }

            socket.emitWithAck("ack_me", cur).timingOut(after: 0) { data in
                if data.first as? String ?? "passed" == SocketAckStatus.noAck {
                    // Handle ack timeout
                }

                socket.emit("update", ["amount": cur + 2.50])
                done.append("acked \(data.first as? Double ?? -1)")
            }

            ack.with("Got your currentAmount", "dude")
        }

        socket.connect()
        // --- end of README code ---

        #expect(await done.wait(forCount: 2))
        #expect(done.values == ["connected", "acked 2.5"])

        // More upstream surface, as apps use it.
        let id: UUID = socket.once(clientEvent: .disconnect) { _, _ in done.append("disconnected") }
        _ = id
        socket.onAny { (event: SocketAnyEvent) in _ = event.event }
        let config: SocketIOClientConfiguration = [.forceNew(true), .reconnectAttempts(-1), .path("/socket.io/")]
        manager.setConfigs(config + manager.config)
        let spec: SocketIOClientSpec = socket
        let managerSpec: SocketManagerSpec? = spec.manager
        #expect(managerSpec?.status == .connected)
        #expect(socket.status.active)
        manager.disconnect()
        #expect(await done.wait(forCount: 3))
        // The README's handlers capture `socket` (socket -> handlers -> socket, as upstream):
        // an app that drops a socket removes them; so does this test, so nothing is left.
        socket.removeAllHandlers()
    }
}
