import Foundation
import RealtimeHTTP
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

/// The native client against a hand-written asyncio server that breaks the protocol
/// (`Tests/Servers/ws_hostile_server.py`): each violation must end in the right close code
/// on the wire and a typed error, with bounded memory.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct WebSocketHostileServerTests {
    static func connect(
        _ server: TestServer, _ path: String,
        options: WebSocketOptions = WebSocketOptions()
    ) async throws -> WebSocketClientConnection {
        try await WebSocketClient().openConnection(to: URL(string: "ws://127.0.0.1:\(server.port)\(path)")!, options: options)
    }

    static let violations: [(path: String, closeCode: Int, kind: WebSocketError.Kind)] = [
        ("/oversize", 1009, .messageTooLarge),
        ("/invalid-utf8", 1007, .invalidUTF8),
        ("/invalid-utf8-fragment", 1007, .invalidUTF8),
        ("/masked", 1002, .protocolError),
        ("/reserved-opcode", 1002, .protocolError),
        ("/bad-close-code", 1002, .protocolError),
    ]

    @Test func violationsCloseWithTheRightCode() async throws {
        let server = try await TestServer.start("ws_hostile_server.py")
        defer { server.stop() }
        for (index, violation) in Self.violations.enumerated() {
            let connection = try await Self.connect(
                server, violation.path,
                options: WebSocketOptions(maxMessageSize: 1 << 20))
            #expect(await webSocketErrorKind { _ = try await connection.receive() } == violation.kind, "\(violation.path)")
            // The error sticks.
            #expect(await webSocketErrorKind { _ = try await connection.receive() } == violation.kind)
            let deadline = MonotonicInstant.now + .seconds(5)
            while server.lines.filter({ $0.hasPrefix("CLOSE=") }).count <= index && MonotonicInstant.now < deadline {
                try await Task.sleep(.milliseconds(10))
            }
            let codes = server.lines.filter { $0.hasPrefix("CLOSE=") }
            #expect(codes.last == "CLOSE=\(violation.closeCode)", "\(violation.path)")
        }
    }

    @Test func pingIsAnsweredWithTheSamePayload() async throws {
        let server = try await TestServer.start("ws_hostile_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/ping")
        let receiving = Task { try await connection.receive() }
        let pong = try await server.waitForLine { $0.hasPrefix("PONG=") }
        #expect(pong == "PONG=" + Array("hostile".utf8).map { String(format: "%02x", $0) }.joined())
        receiving.cancel()
        _ = try? await receiving.value
    }

    @Test func droppedConnectionWithoutCloseFrame() async throws {
        let server = try await TestServer.start("ws_hostile_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/drop")
        #expect(try await connection.receive() == .text("bye"))
        #expect(await webSocketErrorKind { _ = try await connection.receive() } == .closed(code: 1006))
        #expect(connection.closeStatus?.code == 1006)
    }

    @Test func handshakeFailures() async throws {
        let server = try await TestServer.start("ws_hostile_server.py")
        defer { server.stop() }
        #expect(await webSocketErrorKind { _ = try await Self.connect(server, "/bad-accept") } == .invalidAcceptKey)
        #expect(await webSocketErrorKind { _ = try await Self.connect(server, "/forbidden") } == .handshakeFailed(status: 403))
        let started = MonotonicInstant.now
        let silent = await webSocketErrorKind {
            _ = try await Self.connect(server, "/silent", options: WebSocketOptions(connectTimeout: .milliseconds(300)))
        }
        #expect(silent == .timedOut)
        #expect(MonotonicInstant.now - started < .seconds(3))
    }
}
