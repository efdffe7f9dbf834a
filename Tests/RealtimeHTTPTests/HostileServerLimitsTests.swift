import Foundation
import HTTP1Codec
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

@testable import RealtimeHTTP

/// The native HTTP and WebSocket clients against servers that try to exhaust them
/// (`http_raw_server.py`, `ws_hostile_server.py`): each ends in a typed error with the peak
/// resident memory bounded by the configured limit, and the process goes on working.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct HostileServerLimitsTests {
    /// A generous bound on what one hostile exchange may add to the peak resident set: the
    /// limit it hits plus buffers, far below what the server would make an unbounded client hold.
    static func expectBounded(_ peak: PeakMemory, limit: Int, _ label: String) {
        #expect(peak.growthKiB * 1024 < limit * 4 + (24 << 20), "\(label): \(peak)")
    }

    // MARK: HTTP

    @Test(arguments: [
        ("/header-never-ends", HTTPClientError.Kind.headersTooLarge),
        ("/chunk-size-2-63", .invalidResponse),
        ("/chunk-size-2-64", .invalidResponse),
    ])
    func endlessHeadsAndHugeChunkSizesFailTyped(_ path: String, _ expected: HTTPClientError.Kind) async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let (kind, peak) = await PeakMemory.measure("HTTP \(path)") {
            await failureKind {
                let response = try await client.execute(HTTPClientRequest(url: server.url(path)))
                for try await _ in response.body {}
            }
        }
        #expect(kind == .http(expected), "\(path)")
        Self.expectBounded(peak, limit: HTTPParserLimits().maxHeaderBytes, path)
        #expect(client.idleConnectionCount == 0)
        // Still healthy: the next request on the same client works.
        let fine = try await client.execute(HTTPClientRequest(url: server.url("/close-delimited")))
        #expect(try await fine.text() == "streamed until close")
    }

    // MARK: WebSocket

    static func connect(
        _ server: TestServer, _ path: String,
        options: WebSocketOptions = WebSocketOptions()
    ) async throws -> WebSocketClientConnection {
        try await WebSocketClient().openConnection(to: URL(string: "ws://127.0.0.1:\(server.port)\(path)")!, options: options)
    }

    @Test(arguments: [
        ("/deflate-bomb", WebSocketError.Kind.messageTooLarge, 1009),
        ("/endless-message", .messageTooLarge, 1009),
        ("/oversize", .messageTooLarge, 1009),
        ("/garbage", .protocolError, 1002),
    ])
    func messagesPastTheLimitAndGarbageFailTyped(_ path: String, _ expected: WebSocketError.Kind, _ code: Int) async throws {
        let server = try await TestServer.start("ws_hostile_server.py")
        defer { server.stop() }
        let limit = 1 << 20
        let options = WebSocketOptions(maxMessageSize: limit, enableCompression: true)
        let (kind, peak) = await PeakMemory.measure("WebSocket \(path) (limit 1 MiB)") {
            await webSocketErrorKind {
                let connection = try await Self.connect(server, path, options: options)
                if path == "/deflate-bomb" { #expect(connection.compression != nil) }
                _ = try await connection.receive()
            }
        }
        #expect(kind == expected, "\(path)")
        _ = try await server.waitForLine(timeout: .seconds(10)) { $0 == "CLOSE=\(code)" || $0 == "EOF" }
        if path != "/endless-message" {
            #expect(server.lines.contains("CLOSE=\(code)"), "\(path): \(server.lines)")
        }
        // (The endless sender never reads, so it sees the client's close only as EOF.)
        Self.expectBounded(peak, limit: limit, path)
    }

    @Test func aHandshakeSentOneBytePerSecondTimesOut() async throws {
        let server = try await TestServer.start("ws_hostile_server.py")
        defer { server.stop() }
        let started = MonotonicInstant.now
        let kind = await webSocketErrorKind {
            _ = try await Self.connect(server, "/slow-handshake", options: WebSocketOptions(connectTimeout: .seconds(2)))
        }
        #expect(kind == .timedOut)
        #expect(MonotonicInstant.now - started < .seconds(8))
    }
}
