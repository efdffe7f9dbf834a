// WebSocket client benchmark (release build; not a test). See scripts/bench-websocket.sh.
//
//   WebSocketBenchmark PORT [--python results.json] [--round-trips N] [--messages N] [--connections N]
//   WebSocketBenchmark PORT --echo-only [--hop] [--rounds R] [--round-trips N]
//       Only the echo round trips, one JSON line per round (raw, or with the hop to a
//       DispatchQueue per message); see scripts/bench-layers.sh.
import Foundation

let status = await WebSocketBenchmark.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
