import EngineIOClient
import Foundation
import RealtimeHTTP
import RealtimeTime
import Testing

@testable import SocketIO

/// The close handshake of an ended attempt's WebSocket is a task the engine owns: recorded
/// while it runs (bounded by the connection's close timeout), forgotten when it ends.
@Suite struct EngineWebSocketCloseTaskTests {
    /// A WebSocket whose close handshake waits until the test ends it or the task is cancelled.
    final class HangingCloseConnection: WebSocketConnection, @unchecked Sendable {
        // `@unchecked Sendable`: all state is behind `lock`.
        private let lock = NSLock()
        private var closeWaiter: CheckedContinuation<Void, Never>?
        private var closeEnded = false
        private var receiver: CheckedContinuation<WebSocketMessage?, Never>?
        private var _closeCalls = 0
        private var _closeCancelled = false

        let responseHeaders: HTTPHeaders = [:]
        var closeStatus: (code: UInt16, reason: String)? { nil }
        var closeCalls: Int { self.lock.withLock { self._closeCalls } }
        var closeCancelled: Bool { self.lock.withLock { self._closeCancelled } }

        func send(_ message: WebSocketMessage) async throws(WebSocketError) {}

        func receive() async throws(WebSocketError) -> WebSocketMessage? {
            await withCheckedContinuation { continuation in
                self.lock.withLock { self.receiver = continuation }
            }
        }

        /// Ends a close that is waiting (or the next one, at once).
        func endClose() {
            let waiter = self.lock.withLock { () -> CheckedContinuation<Void, Never>? in
                self.closeEnded = true
                defer { self.closeWaiter = nil }
                return self.closeWaiter
            }
            waiter?.resume()
        }

        func close(code: UInt16, reason: String) async {
            let receiver = self.lock.withLock { () -> CheckedContinuation<WebSocketMessage?, Never>? in
                self._closeCalls += 1
                defer { self.receiver = nil }
                return self.receiver
            }
            receiver?.resume(returning: nil)
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = self.lock.withLock { () -> Bool in
                        if self.closeEnded { return true }
                        self.closeWaiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                self.lock.withLock { self._closeCancelled = true }
                self.endClose()
            }
        }
    }

    /// Hands out one hanging-close connection, then refuses.
    final class OneConnectionTransport: WebSocketTransport, @unchecked Sendable {
        // `@unchecked Sendable`: immutable after init.
        let connection = HangingCloseConnection()
        private let lock = NSLock()
        private var connects = 0

        func connect(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> any WebSocketConnection {
            let first = self.lock.withLock { () -> Bool in
                defer { self.connects += 1 }
                return self.connects == 0
            }
            guard first else { throw WebSocketError(.network(.connectionRefused), "refused by the test") }
            return self.connection
        }
    }

    final class SilentClient: QuietEngineClient, @unchecked Sendable {
        let closes = Recorder<String>()
        func engineDidClose(reason: String) { self.closes.append(reason) }
    }

    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return condition()
    }

    /// A new attempt closes the previous attempt's WebSocket in a recorded task, which the
    /// engine forgets once the close ended.
    @Test func theCloseOfAReplacedAttemptsWebSocketIsRecordedUntilItEnds() async {
        let transport = OneConnectionTransport()
        let client = SilentClient()
        let engine = SocketEngine(
            client: client, url: URL(string: "http://example.invalid/")!,
            config: [.forceWebsockets(true)],
            transports: EngineTransports(http: nil, webSocket: transport, httpKeepsCookies: false))
        engine.connect()
        #expect(await self.eventually { engine.state.withLock { $0.attempt.webSocket.connection != nil } })
        engine.connect()
        #expect(await self.eventually { transport.connection.closeCalls == 1 })
        #expect(engine.closingWebSocketCount == 1)
        transport.connection.endClose()
        #expect(await self.eventually { engine.closingWebSocketCount == 0 })
        #expect(!transport.connection.closeCancelled)
        withExtendedLifetime(client) {}
    }

    /// An engine that goes away cancels the close handshakes it still runs: the connection
    /// closes without waiting for the peer (the native connection closes its socket at once
    /// when its close is cancelled, `WebSocketConnectionTests.cancelledCloseStillClosesTheSocket`).
    @Test func aDeinitializedEngineCancelsTheClosesItStillRuns() async {
        let transport = OneConnectionTransport()
        let client = SilentClient()
        var engine: SocketEngine? = SocketEngine(
            client: client, url: URL(string: "http://example.invalid/")!, config: [.forceWebsockets(true)],
            transports: EngineTransports(http: nil, webSocket: transport, httpKeepsCookies: false))
        engine?.connect()
        #expect(await self.eventually { engine?.state.withLock { $0.attempt.webSocket.connection != nil } ?? false })
        engine?.connect()
        #expect(await self.eventually { transport.connection.closeCalls == 1 })
        #expect(engine?.closingWebSocketCount == 1)
        weak let dropped = engine
        engine = nil
        #expect(await self.eventually { dropped == nil })
        #expect(await self.eventually { transport.connection.closeCancelled })
        withExtendedLifetime(client) {}
    }
}
