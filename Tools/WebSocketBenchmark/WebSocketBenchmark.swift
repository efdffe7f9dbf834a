import BenchmarkSupport
import Foundation
import RealtimeHTTP
import RealtimeIO
import RealtimeTime

/// Measures the native client against `ws_echo_server.py`: sequential round trips, one-way
/// 64 KiB throughput both ways, and the memory and threads of many idle connections.
enum WebSocketBenchmark {
    struct Results {
        var roundTripsPerSecond = 0.0
        var uploadMiBPerSecond = 0.0
        var downloadMiBPerSecond = 0.0
        var roundTripCPUMicroseconds = 0.0
    }

    static func main(_ arguments: [String]) async -> Int32 {
        guard let portText = arguments.first, let port = Int(portText) else {
            print(
                "usage: WebSocketBenchmark PORT [--python-client 'PYTHON SCRIPT'] [--rounds R] [--round-trips N] "
                    + "[--messages N] [--connections N]\n"
                    + "       WebSocketBenchmark PORT --echo-only [--hop] [--rounds R] [--round-trips N]")
            return 2
        }
        if arguments.contains("--echo-only") { return await self.echoOnly(port: port, arguments: arguments) }
        let roundTrips = self.intOption("--round-trips", arguments) ?? 20_000
        let messages = self.intOption("--messages", arguments) ?? 2_000
        let connections = self.intOption("--connections", arguments) ?? 1_000
        let rounds = self.intOption("--rounds", arguments) ?? 3
        let pythonClient = self.option("--python-client", arguments)?.split(separator: " ").map(String.init)
        let base = "ws://127.0.0.1:\(port)"
        // One loop for the connections and the round-trip task, as an engine keeps its session.
        let client = WebSocketClient(eventLoops: Self.loop)
        do {
            // The two clients alternate, `rounds` times each; medians of every measure.
            var swiftRounds: [Results] = []
            var pythonRounds: [[String: Double]] = []
            for round in 1...rounds {
                if let pythonClient {
                    let python = try self.runPython(
                        pythonClient + [
                            portText, "--round-trips", "\(roundTrips)",
                            "--messages", "\(messages)",
                        ])
                    pythonRounds.append(python)
                    print(
                        String(
                            format: "round %d python  %8.0f round trips/s  CPU %6.1f us per round trip  up %7.1f  down %7.1f MiB/s",
                            round, python["round_trips_per_second"] ?? 0, python["round_trip_cpu_us"] ?? 0,
                            python["upload_mib_per_second"] ?? 0, python["download_mib_per_second"] ?? 0))
                }
                let echo = try await self.roundTrips(client: client, base: base, count: roundTrips)
                var swift = try await self.throughput(client: client, base: base, messages: messages)
                swift.roundTripsPerSecond = echo.perSecond
                swift.roundTripCPUMicroseconds = echo.cpuMicroseconds
                swiftRounds.append(swift)
                print(
                    String(
                        format: "round %d swift   %8.0f round trips/s  CPU %6.1f us per round trip  up %7.1f  down %7.1f MiB/s",
                        round, swift.roundTripsPerSecond, swift.roundTripCPUMicroseconds,
                        swift.uploadMiBPerSecond, swift.downloadMiBPerSecond))
            }
            let swift = Results(
                roundTripsPerSecond: Measure.median(swiftRounds.map(\.roundTripsPerSecond)),
                uploadMiBPerSecond: Measure.median(swiftRounds.map(\.uploadMiBPerSecond)),
                downloadMiBPerSecond: Measure.median(swiftRounds.map(\.downloadMiBPerSecond)),
                roundTripCPUMicroseconds: Measure.median(swiftRounds.map(\.roundTripCPUMicroseconds)))
            var python: [String: Double] = [:]
            for key in ["round_trips_per_second", "round_trip_cpu_us", "upload_mib_per_second", "download_mib_per_second"] {
                let values = pythonRounds.compactMap { $0[key] }
                if !values.isEmpty { python[key] = Measure.median(values) }
            }
            print("")
            print("medians over \(rounds) alternating rounds (\(roundTrips) round trips, \(messages) messages of 64 KiB each way)")
            self.printTable(swift: swift, python: python)
            try await self.idleConnections(client: client, base: base, count: connections)
            return 0
        } catch {
            print("benchmark failed: \(error)")
            return 1
        }
    }

    static func option(_ name: String, _ arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    static func intOption(_ name: String, _ arguments: [String]) -> Int? {
        self.option(name, arguments).flatMap { Int($0) }
    }

    /// Runs the Python client (blocking this thread, which is not the event loop's) and decodes
    /// the JSON object it prints.
    static func runPython(_ command: [String]) throws -> [String: Double] {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // No child processes on these systems: the comparison runs on macOS and Linux.
        throw WebSocketError(.protocolError, "cannot run the Python client: this platform has no child processes")
        #else
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Double]
        else {
            throw WebSocketError(.protocolError, "the Python client failed: \(String(decoding: data, as: UTF8.self))")
        }
        return object
        #endif
    }

    /// The loop the benchmark's connections and round-trip task share.
    static let loop = EventLoopGroup.shared.next()

    struct RoundTrips {
        var perSecond: Double
        var cpuMicroseconds: Double
        /// Context switches of the process per round trip.
        var switches: Double
    }

    /// Sequential 5-byte text echoes, run on the event loop's executor as the library's own
    /// engines run their connection tasks (a readiness event resumes the task in place).
    static func roundTrips(client: WebSocketClient, base: String, count: Int) async throws -> RoundTrips {
        try await self.onLoop { try await self.measureRoundTrips(client: client, base: base, count: count) }
    }

    /// Runs `body` in a task that prefers ``loop`` as its executor (where the native stack is
    /// built; as is elsewhere).
    static func onLoop<Result>(_ body: () async throws -> Result) async throws -> Result {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        try await withTaskExecutorPreference(Self.loop) { try await body() }
        #else
        try await body()
        #endif
    }

    private static func measureRoundTrips(client: WebSocketClient, base: String, count: Int) async throws -> RoundTrips {
        let echo = try await client.openConnection(
            to: URL(string: base + "/echo")!,
            options: WebSocketOptions(maxMessageSize: 64 << 20))
        for _ in 0..<200 {
            try await echo.send(.text("hello"))
            _ = try await echo.receive()
        }
        let started = MonotonicInstant.now
        let switchesStarted = Measure.processContextSwitches()
        let cpuStarted = Measure.processCPUSeconds()
        for _ in 0..<count {
            try await echo.send(.text("hello"))
            guard case .text? = try await echo.receive() else { throw WebSocketError(.protocolError, "bad echo") }
        }
        let cpu = Measure.processCPUSeconds() - cpuStarted
        let switches = Measure.processContextSwitches() - switchesStarted
        let result = RoundTrips(
            perSecond: Double(count) / Measure.seconds(MonotonicInstant.now - started),
            cpuMicroseconds: cpu / Double(count) * 1e6,
            switches: Double(switches) / Double(count))
        await echo.close(code: 1000, reason: "")
        return result
    }

    static func throughput(client: WebSocketClient, base: String, messages: Int) async throws -> Results {
        var results = Results()
        let options = WebSocketOptions(maxMessageSize: 64 << 20)
        let payload = [UInt8](repeating: 0, count: 65_536)
        let sink = try await client.openConnection(to: URL(string: base + "/sink")!, options: options)
        var started = MonotonicInstant.now
        for _ in 0..<messages { try await sink.send(.binary(payload)) }
        try await sink.send(.text("end"))
        guard try await sink.receive() == .text("done:\(messages * 65_536)") else {
            throw WebSocketError(.protocolError, "sink did not count every byte")
        }
        results.uploadMiBPerSecond = Double(messages * 65_536) / Measure.seconds(MonotonicInstant.now - started) / 1_048_576
        await sink.close(code: 1000, reason: "")

        let source = try await client.openConnection(
            to: URL(string: base + "/source?count=\(messages)&size=65536")!,
            options: options)
        started = MonotonicInstant.now
        var received = 0
        while let message = try await source.receive() {
            if case .binary(let bytes) = message { received += bytes.count } else { break }
        }
        results.downloadMiBPerSecond = Double(received) / Measure.seconds(MonotonicInstant.now - started) / 1_048_576
        guard received == messages * 65_536 else { throw WebSocketError(.protocolError, "source short: \(received)") }
        await source.close(code: 1000, reason: "")
        return results
    }

    static func printTable(swift: Results, python: [String: Double]) {
        func row(_ name: String, _ value: Double, _ key: String, _ unit: String, lowerIsBetter: Bool = false) {
            let other = python[key]
            let ratio = other.map { String(format: "%.2fx", lowerIsBetter ? $0 / value : value / $0) } ?? "-"
            let otherText = other.map { String(format: "%.1f", $0) } ?? "-"
            print(
                name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + String(format: "%14.1f", value) + otherText.leftPadded(14) + ratio.leftPadded(10) + "  " + unit)
        }
        print(
            "measure".padding(toLength: 34, withPad: " ", startingAt: 0)
                + "swift".leftPadded(14) + "python".leftPadded(14) + "ratio".leftPadded(10))
        row("echo round trips (5-byte text)", swift.roundTripsPerSecond, "round_trips_per_second", "per second")
        row(
            "client CPU per round trip", swift.roundTripCPUMicroseconds, "round_trip_cpu_us", "us (ratio: python / swift)",
            lowerIsBetter: true)
        row("upload 64 KiB binary", swift.uploadMiBPerSecond, "upload_mib_per_second", "MiB/s")
        row("download 64 KiB binary", swift.downloadMiBPerSecond, "download_mib_per_second", "MiB/s")
    }

    /// Opens `count` connections, each with a task waiting in `receive()`, and reports the
    /// resident memory they add and the process's thread count.
    static func idleConnections(client: WebSocketClient, base: String, count: Int) async throws {
        let url = URL(string: base + "/echo")!
        // Warm up allocator and event loop with a few connections first.
        for _ in 0..<5 {
            let warm = try await client.openConnection(to: url, options: WebSocketOptions())
            await warm.close(code: 1000, reason: "")
        }
        let before = ProcessStatus.read()
        var connections: [WebSocketClientConnection] = []
        connections.reserveCapacity(count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                let connection = try await client.openConnection(to: url, options: WebSocketOptions())
                connections.append(connection)
                group.addTask { _ = try? await connection.receive() }
            }
            try await Task.sleep(.milliseconds(500))
            let after = ProcessStatus.read()
            let perConnection = Double(after.residentKiB - before.residentKiB) / Double(count)
            print("")
            print("\(count) open connections, each with a task waiting in receive():")
            print(
                "  VmRSS before \(before.residentKiB) KiB, after \(after.residentKiB) KiB: "
                    + String(format: "%.1f KiB per connection", perConnection))
            print("  threads before \(before.threads), after \(after.threads)")
            // Close everything: the server's close frames end the waiting receives.
            for connection in connections {
                group.addTask { await connection.close(code: 1001, reason: "") }
            }
            try await group.waitForAll()
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        self.count >= width ? self : String(repeating: " ", count: width - self.count) + self
    }
}
