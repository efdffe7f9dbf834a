// WebSocket client benchmark (release build; not a test). See scripts/bench-websocket.sh.
//
//   WebSocketBenchmark PORT [--python results.json] [--round-trips N] [--messages N] [--connections N]
//   WebSocketBenchmark PORT --echo-only [--hop] [--rounds R] [--round-trips N]
//       Only the echo round trips, one JSON line per round (raw, or with the hop to a
//       DispatchQueue per message); see scripts/bench-layers.sh and scripts/bench-instructions.sh.
import Dispatch
import Foundation

/// The exit status, set by the task the main thread waits for.
final class ExitStatus: @unchecked Sendable {
    var value: Int32 = 1
}

// Synchronous top-level code that waits for a task, not `await` at the top level: valgrind
// (scripts/bench-instructions.sh counts the echo's instructions) stops at the start of a
// program whose main is async.
let status = ExitStatus()
let finished = DispatchSemaphore(value: 0)
Task.detached {
    status.value = await WebSocketBenchmark.main(Array(CommandLine.arguments.dropFirst()))
    finished.signal()
}
finished.wait()
exit(status.value)
