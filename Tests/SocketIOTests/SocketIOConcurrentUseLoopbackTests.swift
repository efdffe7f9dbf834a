import Dispatch
import Foundation
import RealtimeTime
import SocketIO
import TestSupport
import Testing

/// The public API is documented thread safe: this drives it from several plain threads at once
/// against the real python-socketio server (polling, then the WebSocket upgrade, then a
/// disconnect while calls are still in flight). It asserts the results, and it is the suite's
/// densest cross-thread traffic for `make tsan` / `make tsan-ci` (ThreadSanitizer) to watch.
@Suite(.serialized) struct SocketIOConcurrentUseLoopbackTests {
    static let threads = 4
    static let callsPerThread = 60

    @Test func emitsAcksAndHandlersFromManyThreadsAcrossTheUpgradeAndADisconnect() async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            config: [.reconnects(false)])
        let socket = manager.defaultSocket
        let connected = Recorder<Bool>()
        let echoed = Recorder<Int>()
        socket.on(clientEvent: .connect) { _, _ in connected.append(true) }
        socket.on("echo") { data, _ in
            if let value = data.first as? Int { echoed.append(value) }
        }
        socket.connect()
        #expect(await connected.wait(forCount: 1, timeout: 20), "no connect")

        // Every thread: an acked emit, a plain emit answered by an "echo" event, a handler
        // added and removed, and status reads, all interleaved with the other threads and with
        // the engine's own threads (the upgrade usually completes during this phase).
        let answers = Recorder<(Int, [Any])>()
        let finished = DispatchSemaphore(value: 0)
        for thread in 0..<Self.threads {
            Thread.detachNewThread {
                for call in 0..<Self.callsPerThread {
                    let value = thread * 1_000 + call
                    socket.emitWithAck("ack_me", value).timingOut(after: 30) { data in
                        answers.append((value, data))
                    }
                    socket.emit("echo", value)
                    let id = socket.on("unused-\(thread)") { _, _ in }
                    _ = socket.status
                    _ = manager.status
                    socket.off(id: id)
                }
                finished.signal()
            }
        }
        await Self.wait(finished, count: Self.threads)

        let total = Self.threads * Self.callsPerThread
        #expect(await answers.wait(forCount: total, timeout: 60), "\(answers.count) of \(total) acks")
        #expect(await echoed.wait(forCount: total, timeout: 60), "\(echoed.count) of \(total) echoes")
        let acked = answers.values
        #expect(
            acked.allSatisfy { value, data in (data.first as? Int) == value },
            "an ack carried another call's data")
        #expect(Set(acked.map(\.0)).count == total, "an ack ran twice or for the wrong call")
        #expect(Set(echoed.values).count == total)

        // Now a disconnect races with acked emits from two threads: each callback still runs
        // exactly once (the ack, or "NO ACK" when its timeout fires after the disconnect).
        let late = Recorder<(Int, String)>()
        let lateFinished = DispatchSemaphore(value: 0)
        for thread in 0..<2 {
            Thread.detachNewThread {
                for call in 0..<Self.callsPerThread {
                    let value = 10_000 + thread * 1_000 + call
                    socket.emitWithAck("ack_me", value).timingOut(after: 3) { data in
                        late.append((value, (data.first as? String) ?? "ack"))
                    }
                }
                lateFinished.signal()
            }
        }
        Thread.detachNewThread { manager.disconnect() }
        await Self.wait(lateFinished, count: 2)
        let lateTotal = 2 * Self.callsPerThread
        #expect(await late.wait(forCount: lateTotal, timeout: 30), "\(late.count) of \(lateTotal) late acks")
        try? await Task.sleep(.milliseconds(300))
        #expect(late.count == lateTotal, "a late ack callback ran twice")
        #expect(Set(late.values.map(\.0)).count == lateTotal)
        #expect(late.values.allSatisfy { $0.1 == "ack" || $0.1 == SocketAckStatus.noAck.rawValue })
        #expect(manager.status == .disconnected)
    }

    /// Waits for `count` signals without blocking a cooperative-pool thread.
    static func wait(_ semaphore: DispatchSemaphore, count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                for _ in 0..<count { semaphore.wait() }
                continuation.resume()
            }
        }
    }
}
