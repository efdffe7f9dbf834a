#if os(macOS) || os(Linux)
import Foundation
import TestSupport

/// A built tool (`sio`, `sse`) run as a child process, with stdin, stdout and stderr piped.
///
/// The binaries are found next to the test bundle (the build products directory), in
/// `REALTIME_TOOLS_BIN` if set, or in `.build/debug`; tests skip with the reason when absent.
final class ToolProcess: @unchecked Sendable {
    // @unchecked: `process` and the pipes are set up in init and only read after; Foundation's
    // Process and FileHandle are safe to use from any thread; the collectors have their own lock.
    private let process = Process()
    private let input = Pipe()
    private let stdout = OutputCollector()
    private let stderr = OutputCollector()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Where the build put `name`, or `nil`.
    static func binary(named name: String) -> URL? {
        var directories: [URL] = []
        if let override = ProcessInfo.processInfo.environment["REALTIME_TOOLS_BIN"] {
            directories.append(URL(fileURLWithPath: override))
        }
        // macOS: the `.xctest` bundle sits in the products directory.
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // Linux: the test runner is the `.xctest` executable in the products directory.
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        if let executable = Bundle.main.executableURL {
            directories.append(executable.deletingLastPathComponent())
        }
        directories.append(TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug"))
        return
            directories
            .map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Why tests of `name` are skipped, or `nil` when the binary is there.
    static func missingReason(_ name: String) -> String? {
        self.binary(named: name) == nil
            ? "the '\(name)' binary was not found next to the test bundle, in REALTIME_TOOLS_BIN or in .build/debug (build it with `swift build --build-tests`)"
            : nil
    }

    /// Starts `name` with `arguments`.
    init(_ name: String, _ arguments: [String]) throws {
        guard let executable = Self.binary(named: name) else {
            throw Failure(description: Self.missingReason(name) ?? name)
        }
        self.process.executableURL = executable
        self.process.arguments = arguments
        self.process.standardInput = self.input
        self.process.standardOutput = Self.pipe(into: self.stdout)
        self.process.standardError = Self.pipe(into: self.stderr)
        try self.process.run()
    }

    /// A pipe read to its end by a thread of its own: blocking reads until EOF, since a
    /// `readabilityHandler` may not be called again for an end of file that comes with the
    /// last bytes.
    private static func pipe(into collector: OutputCollector) -> Pipe {
        let pipe = Pipe()
        let handle = pipe.fileHandleForReading
        let reader = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                collector.append(data)
            }
            collector.finish()
        }
        reader.start()
        return pipe
    }

    /// Writes `text` to the tool's stdin.
    func write(_ text: String) {
        self.input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Closes the tool's stdin (end of input).
    func closeInput() {
        try? self.input.fileHandleForWriting.close()
    }

    /// Complete lines printed on stdout so far.
    var outputLines: [String] { self.stdout.lines() }

    /// Everything printed on stderr so far.
    var errorText: String { self.stderr.text() }

    /// Waits until stdout has a line satisfying `predicate`.
    @discardableResult
    func waitForOutputLine(timeout: Double = 15, where predicate: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = self.outputLines.first(where: predicate) { return line }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        if let line = self.outputLines.first(where: predicate) { return line }
        throw Failure(description: "no matching stdout line within \(timeout) s; stdout: \(self.outputLines), stderr: \(self.errorText)")
    }

    /// Waits for the tool to exit and for its output to be read; kills it after `timeout`.
    ///
    /// - Returns: the exit status.
    func waitForExit(timeout: Double = 30) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while self.process.isRunning && Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        guard !self.process.isRunning else {
            self.process.terminate()
            throw Failure(description: "still running after \(timeout) s; stdout: \(self.outputLines), stderr: \(self.errorText)")
        }
        // The pipes may still hold the last output: wait for their end (bounded).
        let drained = Date().addingTimeInterval(5)
        while !(self.stdout.isFinished && self.stderr.isFinished) && Date() < drained {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return self.process.terminationStatus
    }

    deinit {
        if self.process.isRunning { self.process.terminate() }
    }
}

/// A child's output as bytes and lines, collected from the pipe's handler thread.
final class OutputCollector: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSLock()
    private var data = Data()
    private var finished = false

    func append(_ chunk: Data) {
        self.lock.lock()
        self.data.append(chunk)
        self.lock.unlock()
    }

    func finish() {
        self.lock.lock()
        self.finished = true
        self.lock.unlock()
    }

    var isFinished: Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.finished
    }

    func text() -> String {
        self.lock.lock()
        defer { self.lock.unlock() }
        return String(decoding: self.data, as: UTF8.self)
    }

    /// The complete (newline-terminated) lines.
    func lines() -> [String] {
        var lines = self.text().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // the text after the last newline: empty, or an incomplete line
        return lines
    }
}
#endif
