import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// `SocketManager.taskExecutor` against python-socketio: a task that prefers it runs on the
/// manager's event loop, so an awaited ack and a `for await`'s events resume it on the thread
/// that read them; without the preference the same code runs elsewhere.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct TaskExecutorRealServerTests {
    /// The calling thread's name (the package's loops are named `RTIO-<group>-<loop>`).
    static func threadName() -> String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    }

    static func onLoop() -> Bool { Self.threadName().hasPrefix("RTIO-") }

    func manager(_ server: TestServer) -> SocketManager {
        let config: SocketIOClientConfiguration = [
            .log(false), .reconnects(false), .forceWebsockets(true),
            .handleQueue(DispatchQueue(label: "TaskExecutorRealServerTests")),
        ]
        return SocketManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
    }

    /// Where an awaited ack resumes the task, and where each of `total` flooded events reaches
    /// the `for await`: `true` for each that ran on the manager's loop.
    func resumptions(_ socket: SocketIOClient, total: Int) async throws -> (ack: Bool, events: [Bool], values: [Int]) {
        #expect(try await socket.emitWithAck("ack_me", "here", timeout: 10) == "here")
        let ackOnLoop = Self.onLoop()
        let items = socket.on("flood_item")
        await socket.emit("flood", total)
        var onLoop: [Bool] = []
        var values: [Int] = []
        for try await item in items {
            onLoop.append(Self.onLoop())
            values.append(item.intValue ?? -1)
            if values.count == total { break }
        }
        return (ackOnLoop, onLoop, values)
    }

    @Test func aTaskThatPrefersTheManagersLoopResumesThere() async throws {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else {
            print("skipped: task executors need macOS 15 / iOS 18")
            return
        }
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let manager = self.manager(server)
        defer { manager.disconnect() }
        guard let executor = manager.taskExecutor else {
            // Where the package's own transport is not built (the Apple configuration) there
            // is no loop to prefer, and its URLSession cannot open a WebSocket on Linux.
            print("skipped: no native event loop in this build (taskExecutor is nil)")
            return
        }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 10)
        let total = 500

        // Without the preference the task runs on Swift's global executor.
        let elsewhere = try await self.resumptions(socket, total: total)
        #expect(!elsewhere.ack)
        #expect(elsewhere.events.allSatisfy { !$0 })
        #expect(elsewhere.values == Array(0..<total))

        // With it, every resumption is on the loop, and nothing is lost or reordered.
        let onLoop = try await withTaskExecutorPreference(executor) {
            try await self.resumptions(socket, total: total)
        }
        #expect(onLoop.ack)
        #expect(onLoop.events.count == total && onLoop.events.allSatisfy { $0 })
        #expect(onLoop.values == Array(0..<total))
        // The session is intact after the loop-bound consumer left.
        #expect(try await socket.emitWithAck("ack_me", "still here", timeout: 10) == "still here")
    }

    /// URLSession reads on threads of its own: there is no loop to prefer.
    @Test func aURLSessionManagerHasNoTaskExecutor() {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:1")!, config: [.log(false)], transport: .urlSession)
        #expect(manager.taskExecutor == nil)
    }
}
