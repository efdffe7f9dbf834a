import Testing

@testable import SocketIOProtocol

/// Values computed by hand from socket.io-client-swift 16.x `SocketManager.reconnectInterval(attempts:)`.
@Suite struct ReconnectBackoffTests {
    @Test(arguments: [
        (1, 0.0, 15.0),
        (1, 0.5, 18.75),
        (1, 0.999, 22.4925),
        (2, 0.0, 22.5),
        (2, 0.5, 28.125),
        (2, 0.9, 30.0),
        (3, 0.0, 30.0),
        (50, 0.3, 30.0),
        (10_000, 0.3, 30.0),
        (0, 0.0, 10.0),
    ])
    func intervalMatchesUpstreamWithDefaults(attempts: Int, random: Double, seconds: Double) {
        let backoff = ReconnectBackoff()
        #expect(abs(backoff.interval(attempts: attempts, random: random) - seconds) < 1e-9)
    }

    @Test func intervalIsNeverBelowReconnectWait() {
        let backoff = ReconnectBackoff(reconnectWait: 10, reconnectWaitMax: 5, randomizationFactor: 0.5)
        #expect(backoff.interval(attempts: 1, random: 0.9) == 10)
    }

    @Test func scheduleGrowsByOneAndAHalfWithoutJitter() {
        var backoff = ReconnectBackoff(reconnectWait: 1, reconnectWaitMax: 5, randomizationFactor: 0)
        #expect(backoff.nextAttempt(random: 0.7) == .attempt(number: 1, eventValue: -1, retryAfter: .seconds(1.5)))
        #expect(backoff.nextAttempt(random: 0.7) == .attempt(number: 2, eventValue: -2, retryAfter: .seconds(2.25)))
        #expect(backoff.nextAttempt(random: 0.7) == .attempt(number: 3, eventValue: -3, retryAfter: .seconds(3.375)))
        #expect(backoff.nextAttempt(random: 0.7) == .attempt(number: 4, eventValue: -4, retryAfter: .seconds(5)))
        #expect(backoff.currentAttempt == 4)
    }

    @Test func limitedAttemptsGiveUpAndResetStartsOver() {
        var backoff = ReconnectBackoff(reconnectWait: 2, reconnectWaitMax: 30, randomizationFactor: 0.5, reconnectAttempts: 2)
        #expect(backoff.nextAttempt(random: 0) == .attempt(number: 1, eventValue: 2, retryAfter: .seconds(3)))
        #expect(backoff.nextAttempt(random: 1.0) == .attempt(number: 2, eventValue: 1, retryAfter: .seconds(6.75)))
        #expect(backoff.nextAttempt(random: 0) == .giveUp)
        #expect(backoff.nextAttempt(random: 0) == .giveUp)
        backoff.reset()
        #expect(backoff.nextAttempt(random: 0) == .attempt(number: 1, eventValue: 2, retryAfter: .seconds(3)))
    }

    @Test func zeroAttemptsNeverTries() {
        var backoff = ReconnectBackoff(reconnectAttempts: 0)
        #expect(backoff.nextAttempt(random: 0) == .giveUp)
    }

    @Test func hostileConfigurationStaysInRange() {
        var backoff = ReconnectBackoff(reconnectWait: 1e300, reconnectWaitMax: .infinity, randomizationFactor: 1e300)
        guard case .attempt(_, _, let retryAfter) = backoff.nextAttempt(random: 0.5) else {
            Issue.record("expected an attempt")
            return
        }
        #expect(retryAfter == .seconds(1_000_000_000))
    }
}
