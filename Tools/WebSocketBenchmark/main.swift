// WebSocket client benchmark (release build; not a test). See scripts/bench-websocket.sh.
//
//   WebSocketBenchmark PORT [--python results.json] [--round-trips N] [--messages N] [--connections N]
import Foundation

let status = await WebSocketBenchmark.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
