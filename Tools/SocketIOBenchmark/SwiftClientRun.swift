import BenchmarkSupport
import Dispatch
import Foundation
import SocketIO
import SocketIOConcurrency

/// The Swift side of the benchmark: one `SocketManager` over one forced transport, driven the
/// way an application drives socket.io-client-swift: handlers and ack callbacks on a private
/// serial `handleQueue`, the next emit issued from the previous ack's callback.
///
/// - Important: Every mutable property is read and written only on `queue` (the manager's
///   `handleQueue`), or by the calling thread before work is handed to `queue` / after a
///   semaphore says it finished; that is why the class can be `@unchecked Sendable`.
final class SwiftClientRun: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case timedOut(String)

        var description: String {
            switch self {
            case .timedOut(let what): return "timed out: \(what)"
            }
        }
    }

    let transport: String
    /// `"callback"`: `emitWithAck(...).timingOut(after: 0)` (no deadline, as upstream's apps
    /// usually ask) from the previous ack's callback; `"callback-deadline"`: the same with the
    /// deadline the async run sets (a timer armed and cancelled per ack, as the async API always
    /// does), so the two APIs compare doing the same work; `"async"`: SocketIOConcurrency's
    /// `try await emitWithAck(..., timeout:)` in a loop in one task; `"async-loop"`: the same
    /// task preferring the manager's event loop (`SocketManager.taskExecutor`), so the ack
    /// resumes it on the thread that read it (one wake-up per round trip, as the raw echo).
    let api: String
    /// Each ack's deadline in seconds where the API sets one (`"callback-deadline"` and the
    /// async APIs; SocketIOConcurrency's default is 5): `--ack-timeout`, default 60.
    let ackDeadline: Double
    private let queue = DispatchQueue(label: "socketio-benchmark.handle")
    private let manager: SocketManager
    private let socket: SocketIOClient

    // Round-trip loop state (on `queue`).
    private var samples: [Double] = []
    private var remaining = 0
    private var sentAt: UInt64 = 0
    private var loopDone: DispatchSemaphore?

    init(port: Int, transport: String, api: String = "callback", ackDeadline: Double = 60) {
        self.transport = transport
        self.api = api
        self.ackDeadline = ackDeadline
        var config: SocketIOClientConfiguration = [.handleQueue(self.queue), .reconnects(false), .log(false)]
        config.insert(transport == "polling" ? .forcePolling(true) : .forceWebsockets(true))
        self.manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
        self.socket = self.manager.defaultSocket
    }

    /// Connects the default namespace; throws after `timeout` seconds.
    func connect(timeout: Double = 10) throws(Failure) {
        let connected = DispatchSemaphore(value: 0)
        self.socket.once(clientEvent: .connect) { _, _ in connected.signal() }
        self.socket.connect()
        guard connected.wait(timeout: .now() + timeout) == .success else { throw .timedOut("connect") }
    }

    /// Runs `count` sequential `emitWithAck("echo", "payload", i)` round trips; returns each one's
    /// duration in seconds, in order. `timeout` limits the whole loop.
    func roundTrips(_ count: Int, timeout: Double = 60) throws(Failure) -> [Double] {
        if self.api.hasPrefix("async") { return try self.asyncRoundTrips(count, timeout: timeout) }
        let done = DispatchSemaphore(value: 0)
        self.samples = []
        self.samples.reserveCapacity(count)
        self.remaining = count
        self.loopDone = done
        self.queue.async { self.sendNextEcho() }
        guard done.wait(timeout: .now() + timeout) == .success else { throw .timedOut("\(count) round trips") }
        return self.samples
    }

    /// ``roundTrips(_:timeout:)`` through the async API: one task awaits each ack in turn.
    private func asyncRoundTrips(_ count: Int, timeout: Double) throws(Failure) -> [Double] {
        let done = DispatchSemaphore(value: 0)
        let socket = self.socket
        let deadline = self.ackDeadline
        let box = SampleBox()
        let loop: @Sendable () async -> Void = {
            var samples: [Double] = []
            samples.reserveCapacity(count)
            for index in 0..<count {
                let start = Measure.nanoseconds()
                guard (try? await socket.emitWithAck("echo", "payload", index, timeout: deadline)) != nil else { break }
                samples.append(Double(Measure.nanoseconds() - start) / 1e9)
            }
            box.set(samples)
            done.signal()
        }
        // `"async-loop"`: the task prefers the manager's loop (`SocketManager.taskExecutor`).
        // `"async"` is a plain `Task`: one with a (nil) preference takes other runtime paths.
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), self.api == "async-loop" {
            Task(executorPreference: self.manager.taskExecutor) { await loop() }
        } else {
            Task { await loop() }
        }
        guard done.wait(timeout: .now() + timeout) == .success else { throw .timedOut("\(count) async round trips") }
        let samples = box.get()
        guard samples.count == count else { throw .timedOut("async round trip \(samples.count)") }
        return samples
    }

    /// On `queue`: sends the next echo, or signals the end of the loop.
    private func sendNextEcho() {
        guard self.remaining > 0 else {
            self.loopDone?.signal()
            return
        }
        self.remaining -= 1
        self.sentAt = Measure.nanoseconds()
        let deadline = self.api == "callback-deadline" ? self.ackDeadline : 0
        self.socket.emitWithAck("echo", "payload", self.samples.count).timingOut(after: deadline) { [self] _ in
            self.samples.append(Double(Measure.nanoseconds() - self.sentAt) / 1e9)
            self.sendNextEcho()
        }
    }

    /// Emits `count` fire-and-forget `sink` events and waits until the server has counted them
    /// all. Returns (client CPU seconds, wall seconds) from the first emit to the server's
    /// `sink_done`.
    func fireAndForget(_ count: Int, timeout: Double = 60) throws(Failure) -> (cpu: Double, wall: Double) {
        let started = DispatchSemaphore(value: 0)
        self.queue.async {
            self.socket.emitWithAck("sink_start", count).timingOut(after: 0) { _ in started.signal() }
        }
        guard started.wait(timeout: .now() + timeout) == .success else { throw .timedOut("sink_start") }

        let counted = DispatchSemaphore(value: 0)
        self.socket.once("sink_done") { _, _ in counted.signal() }
        let cpuStart = Measure.processCPUSeconds()
        let wallStart = Measure.nanoseconds()
        self.queue.async {
            for index in 0..<count {
                self.socket.emit("sink", "payload", index)
            }
        }
        guard counted.wait(timeout: .now() + timeout) == .success else { throw .timedOut("\(count) emits") }
        let wall = Double(Measure.nanoseconds() - wallStart) / 1e9
        return (Measure.processCPUSeconds() - cpuStart, wall)
    }

    /// Leaves the namespace and closes the engine; waits briefly for the close to go out.
    func disconnect() {
        let closed = DispatchSemaphore(value: 0)
        self.socket.once(clientEvent: .disconnect) { _, _ in closed.signal() }
        self.queue.async {
            self.socket.disconnect()
            self.manager.disconnect()
        }
        _ = closed.wait(timeout: .now() + 2)
    }

    /// The whole measurement over this run's transport: connect, `warmup` round trips,
    /// `acks` measured round trips, `emits` fire-and-forget emits, disconnect.
    func measure(acks: Int, warmup: Int, emits: Int) throws(Failure) -> ClientResult {
        try self.connect()
        _ = try self.roundTrips(warmup)
        let switchesStart = Measure.processContextSwitches()
        let countersStart = Measure.callCounters()
        let cpuStart = Measure.processCPUSeconds()
        let samples = try self.roundTrips(acks)
        let ackCPU = Measure.processCPUSeconds() - cpuStart
        let countersEnd = Measure.callCounters()
        let switches = Measure.processContextSwitches() - switchesStart
        let sorted = samples.sorted()
        let (emitCPU, emitWall) = try self.fireAndForget(emits)
        self.disconnect()
        return ClientResult(
            client: ["async": "swift-async", "async-loop": "swift-async-loop", "callback-deadline": "swift-deadline"][self.api] ?? "swift",
            transport: self.transport, acks: acks,
            p50Microseconds: Measure.percentile(sorted, 0.50) * 1e6,
            p99Microseconds: Measure.percentile(sorted, 0.99) * 1e6,
            cpuPerAckMicroseconds: ackCPU / Double(acks) * 1e6,
            switchesPerAck: Double(switches) / Double(acks),
            allocationsPerAck: countersEnd.map { Double($0.allocations - (countersStart?.allocations ?? 0)) / Double(acks) },
            locksPerAck: countersEnd.map { Double($0.locks - (countersStart?.locks ?? 0)) / Double(acks) },
            emits: emits, cpuPerEmitMicroseconds: emitCPU / Double(emits) * 1e6, emitSeconds: emitWall)
    }
}

/// Hands the async loop's samples to the waiting thread.
final class SampleBox: @unchecked Sendable {
    // `@unchecked Sendable`: `samples` is only touched under `lock`.
    private let lock = NSLock()
    private var samples: [Double] = []

    func set(_ samples: [Double]) { self.lock.withLock { self.samples = samples } }
    func get() -> [Double] { self.lock.withLock { self.samples } }
}
