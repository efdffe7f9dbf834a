import Foundation
import RealtimeHTTP
import RealtimeSync
import RealtimeTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Apple's `URLSessionWebSocketTask.sendPing` may call its pong handler twice when the
/// connection drops with the ping in flight (the failure, then the cancellation). The handshake
/// wait resumes once, with the first call's answer, instead of trapping on a continuation
/// resumed twice.
@Suite struct URLSessionWebSocketPongTests {
    /// A task whose ping answers with each of `pongAnswers` in turn, synchronously.
    final class TwicePongingTask: URLSessionWebSocketTaskHandle, @unchecked Sendable {
        // @unchecked: `state` is the only mutable state, behind its lock.
        let pongAnswers: [(any Error)?]
        let state = LockedValue((cancelled: 0, pings: 0))

        init(pongAnswers: [(any Error)?]) { self.pongAnswers = pongAnswers }

        var response: URLResponse? {
            HTTPURLResponse(url: URL(string: "ws://example.invalid/")!, statusCode: 101, httpVersion: "HTTP/1.1", headerFields: [:])
        }
        var closeCode: URLSessionWebSocketTask.CloseCode { .invalid }
        var closeReason: Data? { nil }
        func setMaximumMessageSize(_ size: Int) {}
        func resume() {}
        func cancel() { self.state.withLock { $0.cancelled += 1 } }
        func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) { self.cancel() }
        func send(_ message: URLSessionWebSocketTask.Message) async throws {}
        func receive() async throws -> URLSessionWebSocketTask.Message { throw URLError(.cancelled) }
        func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
            self.state.withLock { $0.pings += 1 }
            for answer in self.pongAnswers { pongReceiveHandler(answer) }
        }
    }

    @Test func aFailureThenACancellationFailsTheHandshakeOnceWithTheFailure() async throws {
        let task = TwicePongingTask(pongAnswers: [URLError(.networkConnectionLost), URLError(.cancelled)])
        let transport = URLSessionWebSocketTransport(makeTask: { _, _ in task })
        await #expect(throws: WebSocketError.self) {
            _ = try await transport.connect(to: URL(string: "ws://example.invalid/")!, options: WebSocketOptions())
        }
        #expect(task.state.withLock { $0.pings } == 1)
        #expect(task.state.withLock { $0.cancelled } >= 1)
    }

    @Test func aPongThenALateFailureOpensTheConnection() async throws {
        let task = TwicePongingTask(pongAnswers: [nil, URLError(.cancelled)])
        let transport = URLSessionWebSocketTransport(makeTask: { _, _ in task })
        let connection = try await transport.connect(to: URL(string: "ws://example.invalid/")!, options: WebSocketOptions())
        #expect(task.state.withLock { $0.cancelled } == 0)
        _ = connection
    }
}
