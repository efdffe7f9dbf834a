import Dispatch
import Foundation
import RealtimeTime
import SocketIO
import TestSupport
import Testing

/// Public operations called from many threads at once act as one critical section each:
/// one engine, one CONNECT per namespace, and `statusChange` events in the order the status
/// really changed. ("Safe from any thread" is the promise of `SocketManager` and `SocketIOClient`.)
@Suite(.serialized) struct SocketIOConcurrentOperationsTests {
    static let threads = 16
    static let rounds = 10

    /// Runs `body(index)` on `count` threads released together; the waiting happens on a
    /// thread of its own, never on a cooperative-pool thread.
    static func together(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                Self.blockingTogether(count, body)
                continuation.resume()
            }
        }
    }

    private static func blockingTogether(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<count {
            ready.enter()
            done.enter()
            Thread.detachNewThread {
                ready.leave()
                go.wait()
                body(index)
                done.leave()
            }
        }
        ready.wait()
        for _ in 0..<count { go.signal() }
        done.wait()
    }

    @Test(arguments: TransportMode.available.filter { $0 != .upgrade })
    func concurrentConnectsMakeOneEngineAndOneConnectPerNamespace(_ mode: TransportMode) async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        for round in 0..<Self.rounds {
            let queue = DispatchQueue(label: "sio-concurrent-\(round)")
            var config: SocketIOClientConfiguration = [.handleQueue(queue), .reconnects(false)]
            for option in mode.options { config.insert(option) }
            let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
            let root = manager.defaultSocket
            let admin = manager.socket(forNamespace: "/admin")
            let statuses = Recorder<SocketIOStatus>()
            root.on(clientEvent: .statusChange) { data, _ in
                if let status = data.first as? SocketIOStatus { statuses.append(status) }
            }
            let connects = Recorder<String>()
            root.on(clientEvent: .connect) { _, _ in connects.append("/") }
            admin.on(clientEvent: .connect) { _, _ in connects.append("/admin") }

            await Self.together(Self.threads) { index in
                switch index % 4 {
                case 0: manager.connect()
                case 1: root.connect()
                case 2: admin.connect(withPayload: ["token": "admin-secret"])
                default:
                    root.connect()
                    admin.connect(withPayload: ["token": "admin-secret"])
                }
            }
            #expect(await connects.wait(forCount: 2), "round \(round): connects \(connects.values)")
            // Let stray engines or CONNECTs (if any) reach the server before counting.
            try await Task.sleep(.milliseconds(300))
            let recorder = Recorder<[Any]>()
            root.emitWithAck("connect_counts").timingOut(after: 5) { recorder.append($0) }
            #expect(await recorder.wait(forCount: 1, timeout: 10))
            let counts = recorder.values.first?.first as? [String: Any] ?? [:]
            #expect(counts["handshakes"] as? Int == 1, "round \(round): \(counts)")
            #expect(counts["/"] as? Int == 1, "round \(round): \(counts)")
            #expect(counts["/admin"] as? Int == 1, "round \(round): \(counts)")
            #expect(connects.values.sorted() == ["/", "/admin"], "round \(round)")
            // The status went connecting -> connected once, in that order.
            let seen = statuses.values
            #expect(
                seen.last == .connected && seen.filter { $0 == .connected }.count == 1
                    && seen.dropLast().allSatisfy { $0 == .connecting },
                "round \(round): \(seen)")

            manager.disconnect()
            try await Task.sleep(.milliseconds(50))
        }
    }

    @Test(.needsDefaultWebSocket) func concurrentDisconnectsAndEmitsEndDisconnectedOnce() async throws {
        let harness = try await LoopbackHarness(.webSocket)
        defer { harness.stop() }
        let root = harness.manager.defaultSocket
        #expect(await harness.connect(root).connected != nil)
        let statuses = Recorder<SocketIOStatus>()
        root.on(clientEvent: .statusChange) { data, _ in
            if let status = data.first as? SocketIOStatus { statuses.append(status) }
        }
        let disconnects = Recorder<String>()
        root.on(clientEvent: .disconnect) { data, _ in disconnects.append(data.first as? String ?? "") }
        let manager = harness.manager
        await Self.together(Self.threads) { index in
            switch index % 3 {
            case 0: manager.disconnect()
            case 1: root.disconnect()
            default:
                for n in 0..<20 { root.emit("seq", n) }
            }
        }
        #expect(await disconnects.wait(forCount: 1))
        try await Task.sleep(.milliseconds(300))
        #expect(disconnects.count == 1, "\(disconnects.values)")
        #expect(statuses.values == [.disconnected], "\(statuses.values)")
        #expect(root.status == .disconnected)
    }
}
