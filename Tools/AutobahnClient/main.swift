// Runs the Autobahn|Testsuite fuzzing-server cases (served by kosoku) against the native
// WebSocket client, echoing every message back, then summarizes the report.
//
//   AutobahnClient run ws://127.0.0.1:9001 [--agent swift-realtime] [--compression] [--cases 1,2,5-9]
//   AutobahnClient summarize reports/index.json [--agent swift-realtime] [--require 1-10,12-13]
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let status = await AutobahnCommand.main(arguments)
exit(status)
