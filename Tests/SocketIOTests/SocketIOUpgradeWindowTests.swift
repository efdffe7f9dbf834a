import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// Issue "never loses a packet in an upgrade": emits from another thread while the engine
/// moves from polling to WebSocket (probe, pause, `5`, flush) keep the session and their order.
@Suite(.serialized, .needsDefaultWebSocket) struct SocketIOUpgradeWindowTests {
    @Test func emitsFromAnotherThreadDuringTheUpgradeArriveInOrder() async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }

        // The window is a few hundred microseconds wide; several sessions make a reordering
        // (the server then drops the session: "expected UPGRADE packet") near certain to show.
        for round in 0..<6 {
            let queue = DispatchQueue(label: "upgrade-window-\(round)")
            let manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                config: [.handleQueue(queue), .reconnects(false)])
            let socket = manager.defaultSocket
            let upgraded = Recorder<Bool>()
            let emitted = Recorder<Int>()
            let closed = Recorder<String>()
            socket.on(clientEvent: .websocketUpgrade) { _, _ in upgraded.append(true) }
            socket.on(clientEvent: .disconnect) { data, _ in closed.append(data.first as? String ?? "") }
            socket.on(clientEvent: .connect) { _, _ in
                // A plain thread: it emits as fast as it can, across the whole upgrade.
                Thread.detachNewThread {
                    var count = 0
                    var afterUpgrade = 0
                    while afterUpgrade < 50 && count < 20_000 {
                        socket.emit("seq", count)
                        count += 1
                        if !upgraded.values.isEmpty { afterUpgrade += 1 }
                        if count % 8 == 0 { usleep(100) }
                    }
                    emitted.append(count)
                }
            }
            socket.connect()

            #expect(await upgraded.wait(forCount: 1, timeout: 10), "round \(round): no upgrade")
            #expect(await emitted.wait(forCount: 1, timeout: 20), "round \(round): emitter did not finish")
            let count = emitted.values.first ?? 0

            let answer = Recorder<[Any]>()
            socket.emitWithAck("seq_result").timingOut(after: 10) { answer.append($0) }
            #expect(await answer.wait(forCount: 1, timeout: 15), "round \(round): no answer")
            let sequence = (answer.values.first?.first as? [Any])?.compactMap { $0 as? Int }
            #expect(sequence == Array(0..<count), "round \(round): \(sequence?.count ?? -1) of \(count) emits arrived in order")
            #expect(closed.values.isEmpty, "round \(round): session closed: \(closed.values)")
            #expect(manager.status == .connected)
            manager.disconnect()
            // The connect handler captures `socket`: remove the handlers so the round's
            // manager and socket are freed (LeakSanitizer, docs/RELIABILITY.md).
            socket.removeAllHandlers()
        }
    }
}
