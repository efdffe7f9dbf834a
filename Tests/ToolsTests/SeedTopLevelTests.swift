#if os(macOS) || os(Linux)
import Foundation
import TestSupport
import Testing

/// The SocketIOConcurrency seed's usage as the top-level code of a `main.swift`
/// (`Tests/Fixtures/SeedTopLevelExample`), where `try await socket.connect()` binds to the
/// synchronous `connect(withPayload:)`: the flow completes, against python-socketio (the demo
/// server) and the reference server, instead of failing with "not connected".
@Suite(.serialized, .needsTool("SeedTopLevelExample"), TestTimeLimit.minutes(2)) struct SeedTopLevelTests {
    /// Runs the example against `port` and checks what it printed.
    func runSeed(port: Int) async throws {
        let seed = try ToolProcess("SeedTopLevelExample", ["http://127.0.0.1:\(port)"])
        let status = try await seed.waitForExit(timeout: 60)
        #expect(status == 0, "stderr: \(seed.errorText)")
        let lines = seed.outputLines
        #expect(lines.contains(#"ack: {"id": 1, "ok": true}"#), "\(lines)")
        #expect(lines.contains(#"confirm: {"confirmed": true, "echo": {"attempt": 1, "message": "hi", "ok": true}}"#), "\(lines)")
        #expect(!seed.errorText.contains("Fatal error"), "\(seed.errorText)")
    }

    @Test func theSeedRunsAtTheTopLevelAgainstPythonSocketIO() async throws {
        let server = try await TestServer.start("demo_server.py")
        defer { server.stop() }
        try await self.runSeed(port: server.port)
    }

    @Test(.enabled(if: NodeReference.isAvailable, "\(NodeReference.unavailableReason ?? "")"))
    func theSeedRunsAtTheTopLevelAgainstTheReferenceServer() async throws {
        let server = try await TestServer.startNode("node_first_hour_server.js", arguments: ["recovery"])
        defer { server.stop() }
        try await self.runSeed(port: server.port)
    }
}
#endif
