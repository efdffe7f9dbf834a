import Foundation
import RealtimeTime

#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Servers/fault_proxy.py`: a loopback TCP proxy in front of a test server that cuts,
/// stalls, drips and truncates connections when the test says so.
///
/// ```swift
/// let server = try await TestServer.start("sio_server.py")
/// let proxy = try await FaultProxy.start(targetPort: server.port)
/// // point the client at proxy.port, then:
/// try await proxy.inject(.resetAfter(bytes: 3))
/// ```
///
/// Each ``inject(_:)`` returns once the proxy has applied the fault.
package final class FaultProxy: @unchecked Sendable {
    // @unchecked: `process`, `input` and `port` are set once in init; `lines` and `nextID` are
    // guarded by their own locks (LineCollector's and `lock`).
    package let port: Int
    private let process: Process
    private let input: FileHandle
    private let outputLines: LineCollector
    private let lock = NSLock()
    private var nextID = 0

    /// A fault (see the commands in `fault_proxy.py`).
    package enum Fault: Sendable, CustomStringConvertible {
        /// RST every open connection now.
        case reset
        /// Open and later connections pass `bytes` more bytes to the client, then RST.
        case resetAfter(bytes: Int)
        /// The next connection that answers passes `bytes` bytes to the client, then FIN.
        case truncateAfter(bytes: Int)
        /// Open connections pass nothing in either direction until ``resume``.
        case stall
        /// Ends ``stall`` and ``drip(milliseconds:)``.
        case resume
        /// Bytes to the client go one at a time, `milliseconds` apart.
        case drip(milliseconds: Int)
        /// New connections are refused for `seconds`.
        case refuse(seconds: Double)
        /// Every connection is reset and new ones refused until ``up``.
        case down
        /// Listens again after ``down``.
        case up
        /// Forgets ``resetAfter(bytes:)`` and ``truncateAfter(bytes:)``.
        case clear

        package var description: String {
            switch self {
            case .reset: "reset"
            case .resetAfter(let bytes): "reset-after \(bytes)"
            case .truncateAfter(let bytes): "truncate-after \(bytes)"
            case .stall: "stall"
            case .resume: "resume"
            case .drip(let milliseconds): "drip \(milliseconds)"
            case .refuse(let seconds): "refuse \(seconds)"
            case .down: "down"
            case .up: "up"
            case .clear: "clear"
            }
        }
    }

    /// What the proxy has seen so far.
    package struct Stats: Sendable {
        package var open: Int
        package var total: Int
        package var bytesDown: Int
        package var bytesUp: Int
    }

    private init(port: Int, process: Process, input: FileHandle, outputLines: LineCollector) {
        self.port = port
        self.process = process
        self.input = input
        self.outputLines = outputLines
    }

    /// Starts a proxy listening on a free port (or `port`) in front of `127.0.0.1:targetPort`.
    package static func start(targetPort: Int, port: Int = 0) async throws -> FaultProxy {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.python)
        process.arguments = [
            "-u", TestEnvironment.serverScript("fault_proxy.py"),
            "--target-port", "\(targetPort)", "--port", "\(port)",
        ]
        process.currentDirectoryURL = TestEnvironment.repositoryRoot
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        let collector = LineCollector()
        try process.run()
        PipeLines.collect(stdout, into: collector)  // not readabilityHandler: see PipeLines
        let deadline = MonotonicInstant.now + .seconds(30)
        while MonotonicInstant.now < deadline {
            if let line = collector.lines().first(where: { $0.hasPrefix("PORT=") }),
                let port = Int(line.dropFirst(5))
            {
                return FaultProxy(
                    port: port, process: process, input: stdin.fileHandleForWriting,
                    outputLines: collector)
            }
            if !process.isRunning { break }
            try await Task.sleep(.milliseconds(20))
        }
        process.terminate()
        throw TestServer.StartError(description: "fault_proxy.py did not start")
    }

    /// Applies `fault` and returns when the proxy confirmed it.
    package func inject(_ fault: Fault) async throws {
        _ = try await self.command(fault.description)
    }

    /// Counts of connections and bytes.
    package func stats() async throws -> Stats {
        let lines = try await self.command("stats")
        guard let line = lines.first(where: { $0.hasPrefix("STATS ") }) else {
            throw TestServer.StartError(description: "fault_proxy.py: no STATS line")
        }
        var fields: [String: Int] = [:]
        for word in line.split(separator: " ").dropFirst(2) {
            let pair = word.split(separator: "=")
            if pair.count == 2, let value = Int(pair[1]) { fields[String(pair[0])] = value }
        }
        return Stats(
            open: fields["open"] ?? -1, total: fields["total"] ?? -1,
            bytesDown: fields["down"] ?? -1, bytesUp: fields["up"] ?? -1)
    }

    private func command(_ text: String) async throws -> [String] {
        let id = self.lock.withLock { () -> Int in
            self.nextID += 1
            return self.nextID
        }
        let line = Data("\(id) \(text)\n".utf8)
        if #available(macOS 10.15.4, iOS 13.4, tvOS 13.4, watchOS 6.2, *) {
            try self.input.write(contentsOf: line)
        } else {
            self.input.write(line)  // raises instead of throwing, on systems that have no child processes anyway
        }
        let deadline = MonotonicInstant.now + .seconds(10)
        while MonotonicInstant.now < deadline {
            let lines = self.outputLines.lines()
            if lines.contains("OK \(id)") {
                return lines.filter { $0.hasPrefix("STATS \(id) ") }
            }
            if let error = lines.first(where: { $0.hasPrefix("ERR \(id) ") }) {
                throw TestServer.StartError(description: "fault_proxy.py: \(error)")
            }
            try await Task.sleep(.milliseconds(5))
        }
        throw TestServer.StartError(description: "fault_proxy.py did not confirm `\(text)`")
    }

    /// Stops the proxy (closing its stdin ends it; SIGKILL after a second).
    package func stop() {
        guard self.process.isRunning else { return }
        try? self.input.close()
        let deadline = Date().addingTimeInterval(1)
        while self.process.isRunning && Date() < deadline { usleep(2_000) }
        if self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
        self.process.waitUntilExit()
    }

    deinit { self.stop() }
}
