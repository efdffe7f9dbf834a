import EngineIOClient
import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeSync
import Testing

@testable import SocketIO

/// The engine's outbound bound as the SocketIO layer sees it: `send(...)` throws
/// `SocketEngineWriteError` for the write that does not fit, upstream's `write(...)` reports
/// it as an error event and runs the completion, and nothing of the refused write is sent.
@Suite struct EngineWriteBoundTests {
    /// Polling where the handshake `GET` answers and every later request hangs until cancelled,
    /// so the first `POST` stays in flight and later writes wait in the machine's buffer.
    final class StalledPolling: HTTPTransport, @unchecked Sendable {
        // `@unchecked Sendable`: `requests` is behind `lock`.
        private let lock = NSLock()
        private var requests = 0
        private var postBodies: [Int] = []

        var posts: [Int] { self.lock.withLock { self.postBodies } }

        func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
            let first = self.lock.withLock { () -> Bool in
                defer { self.requests += 1 }
                if request.method == "POST" { self.postBodies.append(request.body?.count ?? 0) }
                return self.requests == 0
            }
            if first {
                let open = #"0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":2000000}"#
                return HTTPClientResponse(
                    status: 200, reason: "OK", headers: [:], url: request.url,
                    body: HTTPResponseBody(source: ScriptedEngineBody(Array(open.utf8))))
            }
            while !Task.isCancelled {
                try? await Task.sleep(.milliseconds(10))
            }
            throw HTTPClientError(.cancelled, "cancelled by the engine")
        }
    }

    final class RecordingClient: QuietEngineClient, @unchecked Sendable {
        let errors = Recorder<String>()
        let opens = Recorder<String>()
        func engineDidError(reason: String) { self.errors.append(reason) }
        func engineDidOpen(reason: String) { self.opens.append(reason) }
    }

    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return condition()
    }

    @Test func theWriteThatPassesTheBufferBoundIsRefusedWithATypedError() async throws {
        let http = StalledPolling()
        let client = RecordingClient()
        let engine = SocketEngine(
            client: client, url: URL(string: "http://example.invalid/")!, config: [.forcePolling(true)],
            transports: EngineTransports(http: http, webSocket: ScriptedEngineTransports(), httpKeepsCookies: false))
        defer { engine.disconnect(reason: "test over") }
        engine.connect()
        #expect(await self.eventually { engine.connected })

        // The first write goes in a POST that never ends; the next ones wait behind it.
        try engine.send("first", withType: .message, withData: [])
        #expect(await self.eventually { http.posts.count == 1 })
        let mebibyte = String(repeating: "x", count: 1 << 20)
        // 15 records of 1 MiB + 1 byte fit the default 16 MiB; the 16th does not.
        for _ in 0..<15 {
            try engine.send(mebibyte, withType: .message, withData: [])
        }
        var completed = false
        #expect {
            try engine.send(mebibyte, withType: .message, withData: []) { completed = true }
        } throws: { error in
            guard case .bufferFull(let overflow) = error as? SocketEngineWriteError else { return false }
            return overflow.buffer == .engineWriteBuffer && overflow.bufferedPackets == 15
                && overflow.maximumBytes == EngineClientStateMachine.Configuration.defaultMaximumBufferedBytes
        }
        #expect(!completed)
        // Small writes still fit; upstream's write reports the refusal as an error event and
        // runs the completion.
        try engine.send("small", withType: .message, withData: [])
        var writeCompleted = false
        engine.write(mebibyte, withType: .message, withData: []) { writeCompleted = true }
        #expect(writeCompleted)
        #expect(client.errors.values.count == 1)
        #expect(client.errors.values.first?.hasPrefix("Not sent: engine write buffer full") == true)
        #expect(http.posts.count == 1)
    }

    @Test func notConnectedAndTooLargeAreTypedToo() async throws {
        let http = StalledPolling()
        let engine = SocketEngine(
            client: RecordingClient(), url: URL(string: "http://example.invalid/")!, config: [.forcePolling(true)],
            transports: EngineTransports(http: http, webSocket: ScriptedEngineTransports(), httpKeepsCookies: false))
        #expect(throws: SocketEngineWriteError.notConnected) { try engine.send("x", withType: .message, withData: []) }
        engine.connect()
        defer { engine.disconnect(reason: "test over") }
        #expect(await self.eventually { engine.connected })
        let tooLarge = String(repeating: "y", count: 2_000_000)
        #expect(throws: SocketEngineWriteError.packetTooLarge(length: 2_000_001, limit: 2_000_000)) {
            try engine.send(tooLarge, withType: .message, withData: [])
        }
    }
}
