import Foundation
import RealtimeHTTP
import RealtimeTime

/// Talks to the fuzzing server: `/getCaseCount`, `/runCase`, `/updateReports`.
struct AutobahnRunner {
    let base: URL
    let agent: String
    let compression: Bool
    let client = WebSocketClient()

    var options: WebSocketOptions {
        var options = WebSocketOptions(
            maxMessageSize: 64 << 20, enableCompression: self.compression,
            connectTimeout: .seconds(10))
        options.closeTimeout = .seconds(5)
        return options
    }

    func url(_ path: String) -> URL {
        URL(string: path, relativeTo: self.base)!.absoluteURL
    }

    func runAll(only cases: [Int]?) async -> Int32 {
        let count: Int
        do {
            count = try await self.caseCount()
        } catch {
            say("getCaseCount failed: \(error)")
            return 1
        }
        let selected = cases ?? Array(1...max(1, count))
        say("fuzzing server has \(count) cases; running \(selected.count)")
        let started = MonotonicInstant.now
        for number in selected where number >= 1 && number <= count {
            let caseStarted = MonotonicInstant.now
            await self.run(case: number)
            let elapsed = MonotonicInstant.now - caseStarted
            if elapsed > .seconds(2) { say("  case \(number) took \(elapsed)") }
            if number % 50 == 0 { say("  case \(number)/\(count) (\(MonotonicInstant.now - started))") }
        }
        do {
            let connection = try await self.client.connect(
                to: self.url("/updateReports?agent=\(self.agent)"), options: self.options)
            // kosoku drops this connection without a close frame once the report is queued.
            _ = try? await connection.receive()
        } catch {
            say("updateReports failed: \(error)")
            return 1
        }
        say("ran \(selected.count) cases in \(MonotonicInstant.now - started)")
        return 0
    }

    func caseCount() async throws -> Int {
        let connection = try await self.client.connect(to: self.url("/getCaseCount"), options: self.options)
        var count: Int?
        while let message = try await connection.receive() {
            if case .text(let text) = message { count = Int(text) }
        }
        guard let count else { throw WebSocketError(.protocolError, "no case count") }
        return count
    }

    /// Echoes every message until the server closes (errors are part of what is tested).
    func run(case number: Int) async {
        do {
            let connection = try await self.client.connect(
                to: self.url("/runCase?case=\(number)&agent=\(self.agent)"), options: self.options)
            while let message = try await connection.receive() {
                try await connection.send(message)
            }
        } catch {
            // Protocol violations are expected in many cases; the report judges them.
        }
    }
}
