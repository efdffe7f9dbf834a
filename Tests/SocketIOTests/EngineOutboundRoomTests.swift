import EngineIOClient
import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeSync
import Testing

@testable import SocketIO

/// Backpressure for writers that can wait: `SocketEngine.waitForOutboundRoom()` holds while
/// the write buffer is more than half full and lets go once POSTs drain it, or on
/// cancellation (a scripted polling server whose POSTs wait for the test).
@Suite struct EngineOutboundRoomTests {
    /// The handshake `GET` answers; later `GET`s hang until cancelled; `POST`s hang until
    /// ``release()``, then every `POST` answers `ok` at once.
    final class GatedPolling: HTTPTransport, @unchecked Sendable {
        // `@unchecked Sendable`: the fields are behind `state`.
        private struct State {
            var requests = 0
            var released = false
            var posts = 0
        }
        private let state = LockedValue(State())

        var posts: Int { self.state.withLock { $0.posts } }
        func release() { self.state.withLock { $0.released = true } }

        func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
            let first = self.state.withLock { state -> Bool in
                defer { state.requests += 1 }
                if request.method == "POST" { state.posts += 1 }
                return state.requests == 0
            }
            if first {
                let open = #"0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":2000000}"#
                return Self.response(open, request)
            }
            while !Task.isCancelled {
                if request.method == "POST", self.state.withLock({ $0.released }) { return Self.response("ok", request) }
                try? await Task.sleep(.milliseconds(5))
            }
            throw HTTPClientError(.cancelled, "cancelled by the engine")
        }

        static func response(_ text: String, _ request: HTTPClientRequest) -> HTTPClientResponse {
            HTTPClientResponse(
                status: 200, reason: "OK", headers: [:], url: request.url,
                body: HTTPResponseBody(source: ScriptedEngineBody(Array(text.utf8))))
        }
    }

    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return condition()
    }

    /// An open polling engine with its first POST in flight and 8 records of 1 MiB waiting
    /// behind it (just more than half the 16 MiB bound).
    func crowdedEngine(_ http: GatedPolling) async throws -> SocketEngine {
        let engine = SocketEngine(
            client: EngineWriteBoundTests.RecordingClient(), url: URL(string: "http://example.invalid/")!,
            config: [.forcePolling(true)],
            transports: EngineTransports(http: http, webSocket: ScriptedEngineTransports(), httpKeepsCookies: false))
        engine.connect()
        #expect(await self.eventually { engine.connected })
        try engine.send("first", withType: .message, withData: [])
        #expect(await self.eventually { http.posts == 1 })
        let mebibyte = String(repeating: "x", count: 1 << 20)
        for _ in 0..<7 {
            try engine.send(mebibyte, withType: .message, withData: [])
        }
        #expect(!engine.outboundIsCrowded)  // 7 records of 1 MiB + 1 byte: under half of 16 MiB
        try engine.send(mebibyte, withType: .message, withData: [])
        #expect(engine.outboundIsCrowded)  // 8: just over half
        return engine
    }

    @Test func aWaitingWriterGoesOnOnceThePOSTsMakeRoom() async throws {
        let http = GatedPolling()
        let engine = try await self.crowdedEngine(http)
        defer { engine.disconnect(reason: "test over") }
        let through = LockedValue(false)
        let writer = Task {
            await engine.waitForOutboundRoom()
            through.withLock { $0 = true }
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(!through.withLock { $0 }, "the writer went on with the buffer crowded")
        http.release()
        await writer.value
        #expect(through.withLock { $0 })
        #expect(!engine.outboundIsCrowded)
        // Room came from the POSTs: the one in flight ended and the next took a 1 MiB record
        // (one per POST at maxPayload 2,000,000), leaving 7 of 16 MiB.
        #expect(await self.eventually { http.posts >= 2 })
    }

    @Test func aCancelledWaitEndsWhileTheBufferStaysCrowded() async throws {
        let http = GatedPolling()
        let engine = try await self.crowdedEngine(http)
        defer { engine.disconnect(reason: "test over") }
        let writer = Task { () -> Bool in
            await engine.waitForOutboundRoom()
            return Task.isCancelled
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        writer.cancel()
        #expect(await writer.value)
        #expect(engine.outboundIsCrowded)
        #expect(http.posts == 1)
    }

    @Test func aSocketWaitsOnItsManagersEngine() async throws {
        let http = GatedPolling()
        let manager = SocketManager(
            socketURL: URL(string: "http://example.invalid/")!, config: [.forcePolling(true), .reconnects(false)],
            transport: .custom(EngineTransports(http: http, webSocket: ScriptedEngineTransports(), httpKeepsCookies: false)))
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        // No engine yet: nothing to wait for.
        await socket.waitForOutboundRoom()
        // The engine opens; the namespace's CONNECT is the POST that hangs.
        socket.connect()
        let engine = try #require(manager.engine as? SocketEngine)
        #expect(await self.eventually { engine.connected && http.posts == 1 })
        let mebibyte = String(repeating: "x", count: 1 << 20)
        for _ in 0..<8 {
            try engine.send(mebibyte, withType: .message, withData: [])
        }
        #expect(engine.outboundIsCrowded)
        let through = LockedValue(false)
        let writer = Task {
            await socket.waitForOutboundRoom()
            through.withLock { $0 = true }
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(!through.withLock { $0 })
        http.release()
        await writer.value
        #expect(!engine.outboundIsCrowded)
    }

    @Test func theCloseLetsWaitersGo() async throws {
        let http = GatedPolling()
        let engine = try await self.crowdedEngine(http)
        let writer = Task { await engine.waitForOutboundRoom() }
        try await Task.sleep(nanoseconds: 100_000_000)
        engine.disconnect(reason: "test over")
        await writer.value
        #expect(!engine.outboundIsCrowded)
    }
}
