import BenchmarkSupport
import Foundation

/// What one client measured over one transport: the JSON line both the Swift client
/// (`SocketIOBenchmark client`) and the Python client (`bench_sio_python_client.py`) print.
struct ClientResult: Codable, Sendable, JSONLineResult {
    /// `"swift"` or `"python"`.
    var client: String
    /// `"websocket"` or `"polling"`.
    var transport: String
    /// Measured emitWithAck round trips (after the warm-up).
    var acks: Int
    /// Median round trip, microseconds.
    var p50Microseconds: Double
    /// 99th percentile round trip (nearest rank), microseconds.
    var p99Microseconds: Double
    /// Client process CPU (user + system) over the round trips divided by `acks`, microseconds.
    var cpuPerAckMicroseconds: Double
    /// Context switches (voluntary + involuntary) of the client process over the round trips
    /// divided by `acks`: how many times a thread went to sleep or was preempted per ack.
    var switchesPerAck: Double
    /// Heap allocations of the client process per ack, when run under `scripts/call-counters.sh`.
    var allocationsPerAck: Double?
    /// Mutex acquisitions (`pthread_mutex_lock`) of the client process per ack, likewise.
    var locksPerAck: Double?
    /// Fire-and-forget emits sent (the server counted them all before the clock stopped).
    var emits: Int
    /// Client process CPU from the first emit until the server reported all counted, divided by `emits`.
    var cpuPerEmitMicroseconds: Double
    /// Wall time from the first emit until the server reported all counted.
    var emitSeconds: Double

    enum CodingKeys: String, CodingKey {
        case client, transport, acks, emits
        case p50Microseconds = "p50_us"
        case p99Microseconds = "p99_us"
        case cpuPerAckMicroseconds = "cpu_per_ack_us"
        case switchesPerAck = "switches_per_ack"
        case allocationsPerAck = "allocs_per_ack"
        case locksPerAck = "locks_per_ack"
        case cpuPerEmitMicroseconds = "cpu_per_emit_us"
        case emitSeconds = "emit_seconds"
    }

    /// Fire-and-forget emits per second, the server's counting included.
    var emitsPerSecond: Double { Double(self.emits) / self.emitSeconds }
}
