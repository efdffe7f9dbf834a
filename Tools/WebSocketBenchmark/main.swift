// WebSocket client benchmark (release build; not a test). See scripts/bench-websocket.sh.
//
//   WebSocketBenchmark PORT [--python results.json] [--round-trips N] [--messages N] [--connections N]
//   WebSocketBenchmark PORT --echo-only [--hop] [--rounds R] [--round-trips N]
//       Only the echo round trips, one JSON line per round (raw, or with the hop to a
//       DispatchQueue per message); see scripts/bench-layers.sh and scripts/bench-instructions.sh.
import Dispatch
import Foundation

// Synchronous top-level code that parks the main thread while a detached task runs the
// benchmark and exits the process: valgrind (scripts/bench-instructions.sh counts the echo's
// instructions) stops at the start of a program whose main is async.
Task.detached {
    exit(await WebSocketBenchmark.main(Array(CommandLine.arguments.dropFirst())))
}
DispatchSemaphore(value: 0).wait()
