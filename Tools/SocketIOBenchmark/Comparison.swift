import BenchmarkSupport
import Dispatch
import Foundation

/// The driver: runs the Swift client and python-socketio's `AsyncClient` against the same
/// server, alternating them for several rounds (each client a fresh process per round), then
/// prints medians and ratios in a table.
struct Comparison {
    var port: Int
    var rounds: Int
    var acks: Int
    var warmup: Int
    var emits: Int
    var python: String
    var pythonClient: String

    static let transports = ["websocket", "polling"]

    /// Runs every round and prints the per-round lines and the final table.
    func run() {
        say("Socket.IO client benchmark against python-socketio 5.18.1 (aiohttp) on 127.0.0.1:\(self.port)")
        say(
            "per round and transport: \(self.warmup) warm-up + \(self.acks) sequential emitWithAck(\"echo\") "
                + "round trips, then \(self.emits) fire-and-forget emit(\"sink\") until the server counted them all; "
                + "\(self.rounds) rounds, clients alternating, each a fresh process")
        say()
        var results: [ClientResult] = []
        for round in 1...self.rounds {
            let order = round % 2 == 1 ? ["swift", "python"] : ["python", "swift"]
            for client in order {
                let lines = client == "swift" ? self.runSwiftClient() : self.runPythonClient()
                for line in lines {
                    guard let result = try? JSONDecoder().decode(ClientResult.self, from: Data(line.utf8)) else {
                        say("round \(round) \(client): unreadable output: \(line)")
                        continue
                    }
                    results.append(result)
                    say(
                        String(
                            format: "round %d %-11@ %-9@  p50 %8.1f us  p99 %8.1f us  CPU/ack %7.1f us  "
                                + "switches/ack %5.2f  CPU/emit %6.2f us  %8.0f emits/s",
                            round, result.client, result.transport, result.p50Microseconds,
                            result.p99Microseconds, result.cpuPerAckMicroseconds, result.switchesPerAck,
                            result.cpuPerEmitMicroseconds, result.emitsPerSecond))
                }
            }
        }
        say()
        self.printTable(results)
    }

    private func runSwiftClient() -> [String] {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return Self.runProcess(
            executable,
            [
                "client", "\(self.port)", "--acks", "\(self.acks)",
                "--warmup", "\(self.warmup)", "--emits", "\(self.emits)",
            ])
    }

    private func runPythonClient() -> [String] {
        Self.runProcess(
            self.python,
            [
                self.pythonClient, "\(self.port)", "--acks", "\(self.acks)",
                "--warmup", "\(self.warmup)", "--emits", "\(self.emits)",
            ])
    }

    /// Runs a child process; returns its stdout lines (stderr passes through). Kills it after 120 s.
    private static func runProcess(_ executable: String, _ arguments: [String]) -> [String] {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // No child processes on these systems: the comparison runs on macOS and Linux.
        say("cannot start \(executable): this platform has no child processes")
        return []
        #else
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            say("could not start \(executable): \(error)")
            return []
        }
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        if process.terminationStatus != 0 {
            say("\(URL(fileURLWithPath: executable).lastPathComponent) exited with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #endif
    }

    // MARK: - Table

    private struct Row {
        var name: String
        var value: (ClientResult) -> Double
        /// The Swift client's target, given the Python client's median; nil when there is none.
        var target: ((_ python: Double) -> (limit: Double, text: String))?
        var digits: Int
        var higherIsBetter = false
    }

    private func rows(for transport: String) -> [Row] {
        let ackLimit = transport == "websocket" ? 50.0 : 150.0
        return [
            Row(
                name: "round trip p50 (us)", value: { $0.p50Microseconds },
                target: { python in (python, "<= python") }, digits: 1),
            Row(name: "round trip p99 (us)", value: { $0.p99Microseconds }, target: nil, digits: 1),
            Row(
                name: "client CPU per ack (us)", value: { $0.cpuPerAckMicroseconds },
                target: { _ in (ackLimit, "<= \(Int(ackLimit))") }, digits: 1),
            Row(name: "context switches per ack", value: { $0.switchesPerAck }, target: nil, digits: 2),
            Row(
                name: "client CPU per emit (us)", value: { $0.cpuPerEmitMicroseconds },
                target: { _ in (5, "<= 5") }, digits: 2),
            Row(
                name: "emits/s (until server counted)", value: { $0.emitsPerSecond },
                target: nil, digits: 0, higherIsBetter: true),
        ]
    }

    private func printTable(_ results: [ClientResult]) {
        func cell(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

        say(
            "Medians over \(self.rounds) rounds (ratio: how many times better the Swift client is; "
                + "async: SocketIOConcurrency's emitWithAck, async/swift its cost over the callback API's)")
        say(
            "transport  " + "metric".padding(toLength: 32, withPad: " ", startingAt: 0)
                + cell("swift", 11) + cell("python", 11) + cell("ratio", 9) + cell("target", 13) + cell("met", 6)
                + cell("async", 11) + cell("async/swift", 13))
        var unmet: [String] = []
        for transport in Self.transports {
            let swift = results.filter { $0.client == "swift" && $0.transport == transport }
            let python = results.filter { $0.client == "python" && $0.transport == transport }
            let async = results.filter { $0.client == "swift-async" && $0.transport == transport }
            for row in self.rows(for: transport) {
                let swiftMedian = Measure.median(swift.map(row.value))
                let pythonMedian = Measure.median(python.map(row.value))
                let asyncMedian = Measure.median(async.map(row.value))
                let ratio = row.higherIsBetter ? swiftMedian / pythonMedian : pythonMedian / swiftMedian
                var targetText = ""
                var met = ""
                if let target = row.target?(pythonMedian) {
                    targetText = target.text
                    let ok = swiftMedian <= target.limit
                    met = swift.isEmpty ? "?" : (ok ? "yes" : "NO")
                    if !ok { unmet.append("\(transport) \(row.name)") }
                }
                say(
                    transport.padding(toLength: 11, withPad: " ", startingAt: 0)
                        + row.name.padding(toLength: 32, withPad: " ", startingAt: 0)
                        + cell(format(swiftMedian, row.digits), 11) + cell(format(pythonMedian, row.digits), 11)
                        + cell("x" + format(ratio, 2), 9) + cell(targetText, 13) + cell(met, 6)
                        + cell(format(asyncMedian, row.digits), 11)
                        + cell("x" + format(asyncMedian / swiftMedian, 2), 13))
            }
        }
        say(unmet.isEmpty ? "all targets met" : "targets NOT met: " + unmet.joined(separator: ", "))
    }
}
