import BenchmarkSupport
import Dispatch
import Foundation
import RealtimeHTTP
import RealtimeIO
import RealtimeTime

// MARK: - Echo round trips only, as JSON lines

/// One echo measurement: the JSON line `WebSocketBenchmark PORT --echo-only [--hop]` prints
/// (read by `scripts/bench-layers.sh`).
struct EchoResult: Codable, Sendable, JSONLineResult {
    /// `"raw"`: send and receive from one task on the loop's executor; `"hop"`: receive there,
    /// send from a serial `DispatchQueue` (the callback API's thread structure).
    var mode: String
    /// Measured round trips (after 200 of warm-up).
    var roundTrips: Int
    var roundTripsPerSecond: Double
    /// Client process CPU (user + system) over the round trips divided by `roundTrips`.
    var cpuPerRoundTripMicroseconds: Double
    /// Context switches (voluntary + involuntary) of the client process per round trip.
    var switchesPerRoundTrip: Double
    /// Hop mode: sends the immediate path could not take (the frame writer was busy), which
    /// went through a task and the async `send` instead; 0 in raw mode.
    var fallbackSends: Int

    enum CodingKeys: String, CodingKey {
        case mode
        case roundTrips = "round_trips"
        case roundTripsPerSecond = "round_trips_per_second"
        case cpuPerRoundTripMicroseconds = "cpu_per_round_trip_us"
        case switchesPerRoundTrip = "switches_per_round_trip"
        case fallbackSends = "fallback_sends"
    }
}

extension WebSocketBenchmark {
    /// `--echo-only [--hop] [--rounds R] [--round-trips N]`: only the 5-byte echo round trips,
    /// `rounds` times (default 1), one ``EchoResult`` JSON line each.
    static func echoOnly(port: Int, arguments: [String]) async -> Int32 {
        let hop = arguments.contains("--hop")
        let roundTrips = self.intOption("--round-trips", arguments) ?? 20_000
        let rounds = self.intOption("--rounds", arguments) ?? 1
        let client = WebSocketClient(eventLoops: Self.loop)
        let url = URL(string: "ws://127.0.0.1:\(port)/echo")!
        do {
            for _ in 0..<rounds {
                let result: EchoResult
                if hop {
                    result = try await self.hopRoundTrips(client: client, url: url, count: roundTrips)
                } else {
                    let echo = try await self.roundTrips(client: client, base: "ws://127.0.0.1:\(port)", count: roundTrips)
                    result = EchoResult(
                        mode: "raw", roundTrips: roundTrips, roundTripsPerSecond: echo.perSecond,
                        cpuPerRoundTripMicroseconds: echo.cpuMicroseconds, switchesPerRoundTrip: echo.switches,
                        fallbackSends: 0)
                }
                FileHandle.standardOutput.write(Data((result.jsonLine() + "\n").utf8))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("echo benchmark failed: \(error)\n".utf8))
            return 1
        }
    }

    // MARK: - Hop echo

    /// Sequential 5-byte text echoes with the Socket.IO callback API's thread structure: each
    /// echo is received by a task on the event loop's executor (as in ``roundTrips(client:base:count:)``),
    /// handed to a serial `DispatchQueue` with one `async`, and the next message is sent from
    /// that queue, the way `SocketIOBenchmark`'s callback run emits from the previous ack's
    /// callback on `handleQueue`. The difference to the raw echo is the floor of that contract:
    /// one hand-off to another thread (and its wake-up) per round trip.
    static func hopRoundTrips(client: WebSocketClient, url: URL, count: Int) async throws -> EchoResult {
        try await self.onLoop { try await self.measureHopRoundTrips(client: client, url: url, count: count) }
    }

    private static func measureHopRoundTrips(client: WebSocketClient, url: URL, count: Int) async throws -> EchoResult {
        let echo = try await client.openConnection(to: url, options: WebSocketOptions(maxMessageSize: 64 << 20))
        let sender = QueueSender(connection: echo)
        for _ in 0..<200 {
            sender.send(.text("hello"))
            _ = try await echo.receive()
        }
        let started = MonotonicInstant.now
        let switchesStarted = Measure.processContextSwitches()
        let cpuStarted = Measure.processCPUSeconds()
        for _ in 0..<count {
            // The hop: one `async` to the queue, which sends; this task goes straight back to
            // waiting for the echo (the loop wakes it when the echo arrives).
            sender.send(.text("hello"))
            guard case .text? = try await echo.receive() else { throw WebSocketError(.protocolError, "bad echo") }
        }
        let cpu = Measure.processCPUSeconds() - cpuStarted
        let switches = Measure.processContextSwitches() - switchesStarted
        let perSecond = Double(count) / Measure.seconds(MonotonicInstant.now - started)
        let fallbacks = await sender.fallbackSends()
        await echo.close(code: 1000, reason: "")
        return EchoResult(
            mode: "hop", roundTrips: count, roundTripsPerSecond: perSecond,
            cpuPerRoundTripMicroseconds: cpu / Double(count) * 1e6,
            switchesPerRoundTrip: Double(switches) / Double(count), fallbackSends: fallbacks)
    }
}

/// Sends WebSocket messages from a serial `DispatchQueue`, as an ack callback on `handleQueue`
/// emits: one `DispatchQueue.async` per message, and on the queue the connection's immediate
/// send, the path `EngineWebSocketDriver` takes for an emit from a handler. Its cost, counted
/// in the hop echo: the writer's lock, framing (masking) the 5-byte message into one frame,
/// one `write(2)` from the queue's thread, and the one-element array the call takes; no task,
/// no suspension, no wake-up of the event loop. When the frame writer is busy (a pong, or the
/// rest of a partial write) the message goes through a task and the async `send` instead, as
/// the engine's writer task does; ``fallbackSends()`` counts those.
///
/// `@unchecked Sendable`: `fallbacks` is read and written only on `queue` (the sends run
/// there, and ``fallbackSends()`` reads it there); `connection` and `queue` are immutable
/// and themselves `Sendable`.
private final class QueueSender: @unchecked Sendable {
    private let connection: WebSocketClientConnection
    private let queue = DispatchQueue(label: "websocket-benchmark.hop")
    private var fallbacks = 0

    init(connection: WebSocketClientConnection) {
        self.connection = connection
    }

    /// Hands `message` to the queue, which sends it. A failed write closes the connection, so
    /// the task waiting in `receive()` sees the error.
    func send(_ message: WebSocketMessage) {
        self.queue.async {
            do {
                guard try self.connection.sendImmediately(contentsOf: [message]) else {
                    self.fallbacks += 1
                    let connection = self.connection
                    Task { try? await connection.send(message) }
                    return
                }
            } catch {
                // The connection is closed: the waiting `receive()` throws.
            }
        }
    }

    /// The number of fallback sends so far, read on the queue.
    func fallbackSends() async -> Int {
        await withCheckedContinuation { continuation in
            self.queue.async { continuation.resume(returning: self.fallbacks) }
        }
    }
}
