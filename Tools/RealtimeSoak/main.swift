import BenchmarkSupport
// Soak and scale runs (release build; not a test). See scripts/soak.sh, which starts the
// servers, raises the descriptor limit, runs each mode and plots the CSV files.
//
//   RealtimeSoak socketio <port> [--clients N] [--seconds S] [--interval-ms I] [--csv PATH]
//       N SocketManagers (WebSocket after the polling upgrade) against bench_sio_server.py; each
//       sends one emitWithAck("echo") every I ms for S seconds.
//   RealtimeSoak sse <port> [--streams N] [--seconds S] [--csv PATH]
//       N EventSource streams of soak_server.py's /sse (one event per second each).
//   RealtimeSoak ws-idle <port> [--connections N] [--seconds S] [--csv PATH]
//       N idle WebSocket connections to soak_server.py's /ws, each with a task in receive().
//   RealtimeSoak broadcast <port> [--clients N] [--seconds S] [--idle-seconds I] [--loops L] [--no-handoff-batching] [--csv PATH]
//       N SocketManagers over WebSocket against soak_broadcast_server.py: I seconds idle
//       (heartbeats only), then one broadcast to all every second, S times; prints events
//       lost, delivery latency p50/p99, memory per client, the CPU while idle and per event,
//       and each event loop's CPU. The managers share an EventLoopGroup of L loops (0: the
//       process default, one loop per core).
//
// Every mode samples resident memory, threads and open descriptors once a second into the CSV
// (`seconds,rss_kib,threads,fds,live,operations,failures`) and prints a summary line.
import Foundation
import RealtimeIO

let arguments = Array(CommandLine.arguments.dropFirst())
let options = CommandLineOptions(arguments: arguments)

func option(_ name: String, _ fallback: Int) -> Int { options.integer(name, fallback) }

func stringOption(_ name: String, _ fallback: String) -> String { options.string(name, fallback) }

guard arguments.count >= 2, let port = Int(arguments[1]) else {
    print(
        "usage: RealtimeSoak socketio|sse|ws-idle|broadcast <port> [--clients|--streams|--connections N] "
            + "[--seconds S] [--interval-ms I] [--csv PATH]")
    exit(2)
}

let seconds = option("seconds", 60)
let csv = stringOption("csv", "soak-\(arguments[0]).csv")
let status: Int32
switch arguments[0] {
case "socketio":
    status = await SocketIOSoak(
        port: port, clients: option("clients", 1000),
        interval: .milliseconds(option("interval-ms", 1000))
    ).run(seconds: seconds, csv: csv)
case "sse":
    status = await EventSourceSoak(port: port, streams: option("streams", 1000)).run(seconds: seconds, csv: csv)
case "broadcast":
    // The A/B of the event loop's per-turn hand-off to the handler queues (BENCHMARKS.md).
    if options.flag("no-handoff-batching") { EventLoop.batchesHandoffs = false }
    status = await BroadcastSoak(
        port: port, clients: option("clients", 10_000), broadcasts: seconds, idleSeconds: option("idle-seconds", 10),
        loops: option("loops", 0)
    ).run(csv: csv)
case "ws-idle":
    status = await IdleWebSocketSoak(port: port, connections: option("connections", 10_000)).run(seconds: seconds, csv: csv)
default:
    print("unknown mode \(arguments[0])")
    status = 2
}
exit(status)
