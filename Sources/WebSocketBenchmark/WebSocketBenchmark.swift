import Foundation
import RealtimeHTTP

/// Measures the native client against `ws_echo_server.py`: sequential round trips, one-way
/// 64 KiB throughput both ways, and the memory and threads of many idle connections.
enum WebSocketBenchmark {
    struct Results {
        var roundTripsPerSecond = 0.0
        var uploadMiBPerSecond = 0.0
        var downloadMiBPerSecond = 0.0
    }

    static func main(_ arguments: [String]) async -> Int32 {
        guard let portText = arguments.first, let port = Int(portText) else {
            print("usage: WebSocketBenchmark PORT [--python results.json] [--round-trips N] [--messages N] [--connections N]")
            return 2
        }
        let roundTrips = self.intOption("--round-trips", arguments) ?? 20_000
        let messages = self.intOption("--messages", arguments) ?? 2_000
        let connections = self.intOption("--connections", arguments) ?? 1_000
        let base = "ws://127.0.0.1:\(port)"
        let client = WebSocketClient()
        do {
            let swift = try await self.measure(client: client, base: base, roundTrips: roundTrips, messages: messages)
            var python: [String: Double] = [:]
            if let index = arguments.firstIndex(of: "--python"), index + 1 < arguments.count,
               let data = FileManager.default.contents(atPath: arguments[index + 1]),
               let object = try? JSONSerialization.jsonObject(with: data) as? [String: Double] {
                python = object
            }
            self.printTable(swift: swift, python: python)
            try await self.idleConnections(client: client, base: base, count: connections)
            return 0
        } catch {
            print("benchmark failed: \(error)")
            return 1
        }
    }

    static func intOption(_ name: String, _ arguments: [String]) -> Int? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return Int(arguments[index + 1])
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func measure(client: WebSocketClient, base: String, roundTrips: Int, messages: Int) async throws -> Results {
        var results = Results()
        let options = WebSocketOptions(maxMessageSize: 64 << 20)

        let echo = try await client.openConnection(to: URL(string: base + "/echo")!, options: options)
        for _ in 0..<200 {
            try await echo.send(.text("hello"))
            _ = try await echo.receive()
        }
        var started = ContinuousClock.now
        for _ in 0..<roundTrips {
            try await echo.send(.text("hello"))
            guard case .text? = try await echo.receive() else { throw WebSocketError(.protocolError, "bad echo") }
        }
        results.roundTripsPerSecond = Double(roundTrips) / self.seconds(ContinuousClock.now - started)
        await echo.close(code: 1000, reason: "")

        let payload = [UInt8](repeating: 0, count: 65_536)
        let sink = try await client.openConnection(to: URL(string: base + "/sink")!, options: options)
        started = ContinuousClock.now
        for _ in 0..<messages { try await sink.send(.binary(payload)) }
        try await sink.send(.text("end"))
        guard try await sink.receive() == .text("done:\(messages * 65_536)") else {
            throw WebSocketError(.protocolError, "sink did not count every byte")
        }
        results.uploadMiBPerSecond = Double(messages * 65_536) / self.seconds(ContinuousClock.now - started) / 1_048_576
        await sink.close(code: 1000, reason: "")

        let source = try await client.openConnection(to: URL(string: base + "/source?count=\(messages)&size=65536")!,
                                                     options: options)
        started = ContinuousClock.now
        var received = 0
        while let message = try await source.receive() {
            if case .binary(let bytes) = message { received += bytes.count } else { break }
        }
        results.downloadMiBPerSecond = Double(received) / self.seconds(ContinuousClock.now - started) / 1_048_576
        guard received == messages * 65_536 else { throw WebSocketError(.protocolError, "source short: \(received)") }
        await source.close(code: 1000, reason: "")
        return results
    }

    static func printTable(swift: Results, python: [String: Double]) {
        func row(_ name: String, _ value: Double, _ key: String, _ unit: String) {
            let other = python[key]
            let ratio = other.map { String(format: "%.2fx", value / $0) } ?? "-"
            let otherText = other.map { String(format: "%.1f", $0) } ?? "-"
            print(name.padding(toLength: 34, withPad: " ", startingAt: 0)
                + String(format: "%14.1f", value) + otherText.leftPadded(14) + ratio.leftPadded(10) + "  " + unit)
        }
        print("measure".padding(toLength: 34, withPad: " ", startingAt: 0)
            + "swift".leftPadded(14) + "python".leftPadded(14) + "ratio".leftPadded(10))
        row("echo round trips (5-byte text)", swift.roundTripsPerSecond, "round_trips_per_second", "per second")
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
            try await Task.sleep(for: .milliseconds(500))
            let after = ProcessStatus.read()
            let perConnection = Double(after.residentKiB - before.residentKiB) / Double(count)
            print("")
            print("\(count) open connections, each with a task waiting in receive():")
            print("  VmRSS before \(before.residentKiB) KiB, after \(after.residentKiB) KiB: "
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
