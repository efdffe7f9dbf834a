package import Foundation
package import RealtimeTime

#if canImport(Glibc)
import Glibc
#endif

/// Where the repository and its Python virtualenv live.
package enum TestEnvironment {
    /// The repository root (found from this file's path).
    package static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `.venv/bin/python` made by `scripts/bootstrap.sh`; `REALTIME_PYTHON` overrides it.
    package static var python: String {
        if let override = ProcessInfo.processInfo.environment["REALTIME_PYTHON"] { return override }
        return repositoryRoot.appendingPathComponent(".venv/bin/python").path
    }

    /// A file under `Tests/Servers`.
    package static func serverScript(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Tests/Servers/\(name)").path
    }
}

/// A helper server process started for one test and stopped after it.
///
/// The script binds `127.0.0.1` on a port the kernel picks and prints `PORT=<n>` on its first
/// stdout line; ``start(_:arguments:)`` waits for that line.
package final class TestServer: @unchecked Sendable {
    // @unchecked: `process` and `port` are set once in init and never mutated after;
    // Foundation's Process is safe to terminate from any thread.
    package let port: Int
    private let process: Process
    private let outputLines: LineCollector

    package struct StartError: Error, CustomStringConvertible {
        package var description: String
    }

    private init(port: Int, process: Process, outputLines: LineCollector) {
        self.port = port
        self.process = process
        self.outputLines = outputLines
    }

    /// Starts `Tests/Servers/<script>` with the project's Python.
    package static func start(
        _ script: String, arguments: [String] = [],
        timeout: TimeAmount = .seconds(30)
    ) async throws -> TestServer {
        try await self.start(script, python: TestEnvironment.python, arguments: arguments, timeout: timeout)
    }

    /// Starts `Tests/Servers/<script>` with the interpreter at `python` (another virtualenv,
    /// e.g. `.venv-sio2/bin/python` for the Socket.IO 2.x peer).
    package static func start(
        _ script: String, python: String, arguments: [String] = [],
        timeout: TimeAmount = .seconds(30)
    ) async throws -> TestServer {
        try await self.launch(
            script, executable: python, arguments: ["-u", TestEnvironment.serverScript(script)] + arguments,
            environment: nil, timeout: timeout)
    }

    /// Starts `Tests/Servers/<script>` (JavaScript) with Node.js and the reference Socket.IO
    /// server of ``NodeReference``; check ``NodeReference/unavailableReason`` first.
    package static func startNode(
        _ script: String, arguments: [String] = [],
        timeout: TimeAmount = .seconds(30)
    ) async throws -> TestServer {
        guard let node = NodeReference.node else {
            throw StartError(description: NodeReference.unavailableReason ?? "node not found")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NODE_PATH"] = NodeReference.modules.path
        return try await self.launch(
            script, executable: node, arguments: [TestEnvironment.serverScript(script)] + arguments,
            environment: environment, timeout: timeout)
    }

    private static func launch(
        _ script: String, executable: String, arguments: [String], environment: [String: String]?,
        timeout: TimeAmount
    ) async throws -> TestServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = TestEnvironment.repositoryRoot
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        let collector = LineCollector()
        try process.run()
        PipeLines.collect(stdout, into: collector)  // not readabilityHandler: see PipeLines
        let deadline = MonotonicInstant.now + timeout
        while MonotonicInstant.now < deadline {
            if let line = collector.lines().first(where: { $0.hasPrefix("PORT=") }),
                let port = Int(line.dropFirst(5))
            {
                return TestServer(port: port, process: process, outputLines: collector)
            }
            if !process.isRunning {
                throw StartError(description: "\(script) exited with status \(process.terminationStatus)")
            }
            try await Task.sleep(.milliseconds(20))
        }
        process.terminate()
        throw StartError(description: "\(script) printed no PORT= line within \(timeout)")
    }

    /// Lines the server printed on stdout so far.
    package var lines: [String] { self.outputLines.lines() }

    /// Waits until the server printed a line satisfying `predicate`.
    package func waitForLine(
        timeout: TimeAmount = .seconds(10),
        where predicate: (String) -> Bool
    ) async throws -> String {
        let deadline = MonotonicInstant.now + timeout
        while MonotonicInstant.now < deadline {
            if let line = self.lines.first(where: predicate) { return line }
            try await Task.sleep(.milliseconds(10))
        }
        // One last look: under load the line may have arrived during the final sleep.
        if let line = self.lines.first(where: predicate) { return line }
        throw StartError(description: "no matching server line within \(timeout); got \(self.lines)")
    }

    /// Stops the server (SIGTERM, then SIGKILL after a second) and waits for it, so its port is
    /// free when this returns.
    ///
    /// - Important: This waits synchronously (typically a few milliseconds: the Python servers
    ///   exit on SIGTERM at once). Tests that restart a server on the same port rely on that.
    package func stop() {
        guard self.process.isRunning else { return }
        self.process.terminate()
        let deadline = Date().addingTimeInterval(1)
        while self.process.isRunning && Date() < deadline { usleep(2_000) }
        if self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
        self.process.waitUntilExit()
    }

    /// Sends SIGSTOP or SIGCONT (to simulate a server that stops answering).
    package func signal(_ signal: Int32) {
        kill(self.process.processIdentifier, signal)
    }

    deinit { self.stop() }
}

/// Collects a child's stdout as lines, from the pipe's handler thread.
final class LineCollector: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSLock()
    private var buffer = Data()
    private var complete: [String] = []

    func append(_ data: Data) {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.buffer.append(data)
        while let newline = self.buffer.firstIndex(of: 0x0A) {
            let line = self.buffer[self.buffer.startIndex..<newline]
            self.complete.append(String(decoding: line, as: UTF8.self))
            self.buffer.removeSubrange(self.buffer.startIndex...newline)
        }
    }

    func finish() {}

    func lines() -> [String] {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.complete
    }
}
