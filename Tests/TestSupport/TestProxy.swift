package import Foundation
import RealtimeTime

#if canImport(Glibc)
import Glibc
#endif

/// A real proxy server process for one test: Debian's `tinyproxy` (HTTP CONNECT, Basic auth),
/// `danted` (dante-server, SOCKS5 with rules) or PyPI's `pproxy` (SOCKS5 and HTTP with
/// username/password), on a free 127.0.0.1 port with a generated configuration.
package final class TestProxy: @unchecked Sendable {
    // @unchecked: `process`, `port` and `directory` are set once in init and never mutated;
    // Foundation's Process is safe to terminate from any thread.
    package let port: Int
    private let process: Process
    private let directory: URL

    package struct StartError: Error, CustomStringConvertible {
        package var description: String
    }

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    /// tinyproxy with `BasicAuth user password` when given; `connectPorts` limits the ports
    /// CONNECT may reach (tinyproxy answers others with 403).
    package static func tinyproxy(
        username: String? = nil, password: String? = nil,
        connectPorts: [Int] = []
    ) async throws -> TestProxy {
        try await self.launch { port, directory in
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 60", "MaxClients 64", "Allow 127.0.0.1",
                "DisableViaHeader Yes", "LogLevel Critical", "PidFile \"\(directory.path)/tinyproxy.pid\"",
            ]
            if let username, let password { lines.append("BasicAuth \(username) \(password)") }
            lines += connectPorts.map { "ConnectPort \($0)" }
            let config = directory.appendingPathComponent("tinyproxy.conf")
            try lines.joined(separator: "\n").appending("\n").write(to: config, atomically: true, encoding: .utf8)
            return ("/usr/bin/tinyproxy", ["-d", "-c", config.path])
        }
    }

    /// danted (no authentication) that refuses CONNECT to 127.0.0.1 port `blockedPort` with
    /// reply code 2 ("not allowed by ruleset") and passes everything else.
    package static func dante(blockedPort: Int) async throws -> TestProxy {
        try await self.launch { port, directory in
            let lines = [
                "logoutput: stderr", "internal: 127.0.0.1 port = \(port)", "external: 127.0.0.1",
                "clientmethod: none", "socksmethod: none", "user.privileged: root", "user.unprivileged: nobody",
                "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
                "socks block { from: 0.0.0.0/0 to: 127.0.0.1/32 port = \(blockedPort) }",
                "socks pass { from: 0.0.0.0/0 to: 0.0.0.0/0 }",
            ]
            let config = directory.appendingPathComponent("danted.conf")
            try lines.joined(separator: "\n").appending("\n").write(to: config, atomically: true, encoding: .utf8)
            return (
                "/usr/sbin/danted",
                [
                    "-f", config.path, "-N", "1",
                    "-p", directory.appendingPathComponent("danted.pid").path,
                ]
            )
        }
    }

    /// pproxy serving `scheme` (`socks5` or `http`), requiring `username:password` when given.
    package static func pproxy(_ scheme: String, username: String? = nil, password: String? = nil) async throws -> TestProxy {
        try await self.launch { port, _ in
            let auth = username.map { "#\($0):\(password ?? "")" } ?? ""
            let pproxy = TestEnvironment.repositoryRoot.appendingPathComponent(".venv/bin/pproxy").path
            return (pproxy, ["-l", "\(scheme)://127.0.0.1:\(port)\(auth)"])
        }
    }

    private static func launch(_ command: (Int, URL) throws -> (String, [String])) async throws -> TestProxy {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("realtime-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let (executable, arguments) = try command(port, directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let proxy = TestProxy(port: port, process: process, directory: directory)
        let deadline = MonotonicInstant.now + .seconds(20)
        while MonotonicInstant.now < deadline {
            if !process.isRunning {
                throw StartError(description: "\(executable) exited with status \(process.terminationStatus)")
            }
            if await acceptsConnections(port: port) { return proxy }
            try await Task.sleep(.milliseconds(30))
        }
        proxy.stop()
        throw StartError(description: "\(executable) did not listen on \(port) within 20 s")
    }

    /// Stops the proxy (SIGTERM, then SIGKILL after a second) and waits for it.
    package func stop() {
        if self.process.isRunning {
            self.process.terminate()
            let deadline = Date().addingTimeInterval(1)
            while self.process.isRunning && Date() < deadline { usleep(2_000) }
            if self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
            self.process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// Kills the proxy and its child processes at once (SIGKILL; danted serves tunnels from
    /// children): every tunnel through it is cut mid-stream.
    package func kill9() {
        let root = self.process.processIdentifier
        var doomed: [pid_t] = [root]
        var index = 0
        let table = Self.parentTable()
        while index < doomed.count {
            doomed += table.filter { $0.value == doomed[index] }.map(\.key)
            index += 1
        }
        for pid in doomed { kill(pid, SIGKILL) }
        self.process.waitUntilExit()
    }

    /// pid -> parent pid of every process, from /proc/<pid>/stat.
    private static func parentTable() -> [pid_t: pid_t] {
        var table: [pid_t: pid_t] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { table[pid] = parent }
        }
        return table
    }

    deinit { self.stop() }
}

/// A port the kernel reports free on 127.0.0.1 (bound to port 0, then released).
package func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, socketStreamType, 0)
    guard descriptor >= 0 else { throw TestProxy.StartError(description: "socket() failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw TestProxy.StartError(description: "bind() failed") }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw TestProxy.StartError(description: "getsockname() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port` (checked on its own thread:
/// a connect is a system call the cooperative pool must not make).
private func acceptsConnections(port: Int) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread {
            let descriptor = socket(AF_INET, socketStreamType, 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            continuation.resume(returning: result == 0)
        }.start()
    }
}

/// `SOCK_STREAM` as `socket(2)` takes it: an enum in Glibc's overlay, an `Int32` in Darwin's.
private var socketStreamType: Int32 {
    #if canImport(Glibc)
    Int32(SOCK_STREAM.rawValue)
    #else
    SOCK_STREAM
    #endif
}
