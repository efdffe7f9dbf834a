package import RealtimeTime

/// The reconnect schedule of socket.io-client-swift 16.x `SocketManager`.
///
/// Upstream (`SocketManager._tryReconnect` and `reconnectInterval(attempts:)`):
/// - each try first checks `reconnectAttempts != -1 && currentReconnectAttempt + 1 > reconnectAttempts`
///   and gives up ("Reconnect Failed") when true;
/// - it emits `reconnectAttempt` with `reconnectAttempts - currentReconnectAttempt`, increments
///   `currentReconnectAttempt`, connects right away, and schedules the next try after
///   `reconnectInterval(attempts: currentReconnectAttempt)`;
/// - `interval = reconnectWait * 1.5^attempts`, plus `rand * randomizationFactor * interval`
///   with `rand` uniform in `0..<1`, clamped to `max(reconnectWait, min(combined, reconnectWaitMax))`;
/// - defaults `reconnectWait` 10 s, `reconnectWaitMax` 30 s, `randomizationFactor` 0.5,
///   `reconnectAttempts` -1 (unlimited); a successful connect resets the attempt count to 0.
///
/// Randomness is an input, so schedules are deterministic under test.
///
/// ```swift
/// var backoff = ReconnectBackoff()
/// switch backoff.nextAttempt(random: Double.random(in: 0..<1)) {
/// case .attempt(let number, let eventValue, let retryAfter): ...  // connect now, retry after
/// case .giveUp: ...                                                // "Reconnect Failed"
/// }
/// ```
package struct ReconnectBackoff: Sendable, Hashable {
    /// What to do on a reconnect try.
    package enum Decision: Sendable, Hashable {
        /// Connect now (try `number`, counting from 1); `eventValue` is the value upstream passes
        /// with the `reconnectAttempt` client event; try again after `retryAfter` unless connected.
        case attempt(number: Int, eventValue: Int, retryAfter: TimeAmount)
        /// The attempt budget is spent: disconnect with "Reconnect Failed".
        case giveUp
    }

    /// Minimum wait in seconds (upstream `reconnectWait`, default 10).
    package var reconnectWait: Double
    /// Maximum wait in seconds (upstream `reconnectWaitMax`, default 30).
    package var reconnectWaitMax: Double
    /// Jitter factor (upstream `randomizationFactor`, default 0.5).
    package var randomizationFactor: Double
    /// The most tries, or -1 for unlimited (upstream `reconnectAttempts`).
    package var reconnectAttempts: Int
    /// Tries made since the last successful connect (upstream `currentReconnectAttempt`).
    package private(set) var currentAttempt = 0

    /// A schedule with upstream's defaults unless given.
    package init(reconnectWait: Double = 10, reconnectWaitMax: Double = 30, randomizationFactor: Double = 0.5, reconnectAttempts: Int = -1) {
        self.reconnectWait = reconnectWait
        self.reconnectWaitMax = reconnectWaitMax
        self.randomizationFactor = randomizationFactor
        self.reconnectAttempts = reconnectAttempts
    }

    /// The next try.
    ///
    /// - Parameter random: a uniform random number in `0..<1` (upstream `Double.random(in: 0 ..< 1)`).
    package mutating func nextAttempt(random: Double) -> Decision {
        if self.reconnectAttempts != -1 && self.currentAttempt + 1 > self.reconnectAttempts {
            return .giveUp
        }
        let eventValue = self.reconnectAttempts - self.currentAttempt
        self.currentAttempt += 1
        let seconds = self.interval(attempts: self.currentAttempt, random: random)
        // Keep the TimeAmount conversion in range whatever the configuration holds.
        let bounded = seconds.isNaN ? 0 : min(max(seconds, 0), 1_000_000_000)
        return .attempt(number: self.currentAttempt, eventValue: eventValue, retryAfter: .seconds(bounded))
    }

    /// Forgets the tries (upstream: status becomes `.connected`).
    package mutating func reset() {
        self.currentAttempt = 0
    }

    /// Upstream `reconnectInterval(attempts:)`, in seconds, with `random` in `0..<1`.
    package func interval(attempts: Int, random: Double) -> Double {
        let interval = self.reconnectWait * Self.power(1.5, attempts)
        let randomFactor = random * self.randomizationFactor * interval
        let combined = interval + randomFactor
        return max(self.reconnectWait, min(combined, self.reconnectWaitMax))
    }

    /// `base^exponent` by repeated squaring (no Foundation `pow` in this layer); saturates at
    /// infinity for huge exponents, which the clamp then bounds.
    private static func power(_ base: Double, _ exponent: Int) -> Double {
        guard exponent > 0 else { return 1 }
        var result = 1.0
        var factor = base
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result *= factor }
            factor *= factor
            remaining >>= 1
            if result.isInfinite { return result }
        }
        return result
    }
}
