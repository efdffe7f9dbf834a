import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

@testable import RealtimeHTTP

/// ``WebSocketClientConnection/close(code:reason:)`` is bounded by one timer of the
/// connection's ``TimerSource`` (its loop's), here a manual clock: the close ends when the
/// clock reaches the close timeout, or at once when the closing task is cancelled, and leaves
/// no timer behind.
@Suite(TestTimeLimit.minutes(1)) struct WebSocketCloseTimeoutTests {
    typealias StalledStream = WebSocketFrameWriterLifetimeTests.StalledStream

    /// A connection whose writer is stuck behind a write the peer never takes, so the close
    /// frame waits behind it.
    private func stalledConnection(_ stream: StalledStream, timers: ManualTimerSource) async throws -> WebSocketClientConnection {
        let connection = WebSocketClientConnection(
            stream: stream, responseHeaders: HTTPHeaders(), bufferedBytes: [],
            maxMessageSize: 1 << 20, compression: nil, subprotocol: nil,
            closeTimeout: .seconds(30), eventLoop: EventLoopGroup.shared.next(), timers: timers)
        #expect(try connection.sendImmediately(contentsOf: WebSocketFrameWriterLifetimeTests.batch))
        let waiting = await ProcessResources.eventually { stream.hasWaitingWriter }
        try #require(waiting)
        return connection
    }

    @Test func theCloseEndsWhenTheClockReachesTheCloseTimeout() async throws {
        let clock = ManualTimerSource()
        let stream = StalledStream(immediateLimit: 10)
        let connection = try await self.stalledConnection(stream, timers: clock)
        let closing = Task { await connection.close(code: 1000, reason: "") }
        #expect(await clock.waitForScheduledTimers(1))
        #expect(clock.nextDeadline == clock.now + .seconds(30))
        clock.advance(by: .seconds(29))
        #expect(!stream.isClosed)
        clock.advance(by: .seconds(1))
        await closing.value
        #expect(stream.isClosed)
        #expect(connection.closeStatus?.code == 1006)
        #expect(clock.scheduledCount == 0)
    }

    @Test func cancellingTheClosingTaskClosesAtOnceAndCancelsTheTimer() async throws {
        let clock = ManualTimerSource()
        let stream = StalledStream(immediateLimit: 10)
        let connection = try await self.stalledConnection(stream, timers: clock)
        let closing = Task { await connection.close(code: 1000, reason: "") }
        #expect(await clock.waitForScheduledTimers(1))
        closing.cancel()
        await closing.value
        #expect(stream.isClosed)
        #expect(clock.scheduledCount == 0)
    }
}
