import Foundation
import RealtimeTime

/// Decides what an EventSource data task does next: open, fail, close or reconnect, given
/// response heads, the end of bodies, `retry:` fields and the current time. No I/O, no clock.
///
/// Implements the connection rules of WHATWG HTML §9.2.3 (200 with `text/event-stream`
/// opens; 204 closes; anything else fails the connection) plus the opt-in
/// ``EventSource/ReconnectionPolicy`` (backoff, jitter, attempt cap, healthy-period reset).
struct EventSourceStateMachine: Sendable {
    enum Phase: Sendable, Equatable {
        case idle
        case connecting(attempt: Int)
        case open(since: MonotonicInstant)
        case waiting(attempt: Int)
        case closed
    }

    /// What a response head means.
    enum HeadDecision: Sendable, Equatable {
        /// 200 with `text/event-stream`: the stream is open.
        case open
        /// 204: the server asks the client to stop; close without an error.
        case close
        /// Another status, or a 200 of another content type: report
        /// `EventSourceError.connectionError` with the status and close.
        case fail(statusCode: Int)
    }

    /// What the end of a connection (clean or failed) leads to.
    enum EndDecision: Sendable, Equatable {
        case reconnect(after: TimeAmount, attempt: Int)
        case close
    }

    private(set) var phase: Phase = .idle
    let policy: EventSource.ReconnectionPolicy
    /// The server's last `retry:` value, if any.
    private(set) var serverRetry: TimeAmount?
    /// Consecutive reconnection attempts since the last healthy connection.
    private(set) var failedAttempts = 0
    /// The caller asked for a restart (``requestRestart()``) that the driver has not begun yet.
    private(set) var restartRequested = false

    /// Whether the request may be sent again by itself (RFC 9110 §9.2.2): a non-idempotent one
    /// (a `POST`, such as an LLM completion) is resent only when the policy says
    /// ``EventSource/ReconnectionPolicy/reconnectsNonIdempotentRequests``.
    let requestIsIdempotent: Bool

    init(policy: EventSource.ReconnectionPolicy, requestIsIdempotent: Bool = true) {
        self.policy = policy
        self.requestIsIdempotent = requestIsIdempotent
    }

    /// Whether `method` is idempotent (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT,
    /// DELETE); `nil` is GET.
    static func isIdempotent(method: String?) -> Bool {
        switch (method ?? "GET").uppercased() {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
        default: false
        }
    }

    var readyState: EventSource.ReadyState {
        switch self.phase {
        case .idle: .none
        case .connecting, .waiting: .connecting
        case .open: .open
        case .closed: .closed
        }
    }

    var isClosed: Bool { self.phase == .closed }

    /// The first connection starts.
    mutating func start() {
        guard self.phase == .idle else { return }
        self.phase = .connecting(attempt: 0)
    }

    /// A reconnection's wait is over and it connects now.
    mutating func reconnect() {
        guard case .waiting(let attempt) = self.phase else { return }
        self.phase = .connecting(attempt: attempt)
    }

    /// A response head arrived.
    mutating func receivedHead(status: Int, contentType: String?, at now: MonotonicInstant) -> HeadDecision {
        guard case .connecting = self.phase else { return .close }
        if status == 204 {
            self.phase = .closed
            return .close
        }
        guard status == 200, Self.isEventStream(contentType) else {
            self.phase = .closed
            return .fail(statusCode: status)
        }
        self.phase = .open(since: now)
        return .open
    }

    /// The server sent `retry:` with this many milliseconds.
    mutating func receivedRetry(milliseconds: Int) {
        self.serverRetry = .milliseconds(Int64(clamping: milliseconds))
    }

    /// The connection ended: `failed` for a network error or timeout, `false` for the end of
    /// the body. `jitterUnit` is a random number in `0..<1`.
    mutating func connectionEnded(failed: Bool, at now: MonotonicInstant, jitterUnit: Double) -> EndDecision {
        switch self.phase {
        case .closed, .idle, .waiting:
            self.phase = .closed
            return .close
        case .open(let since):
            if now - since >= Self.duration(self.policy.healthyConnectionInterval) {
                self.failedAttempts = 0
            }
        case .connecting:
            break
        }
        guard self.policy.isEnabled, failed || self.policy.reconnectsAfterEndOfStream,
            self.requestIsIdempotent || self.policy.reconnectsNonIdempotentRequests
        else {
            self.phase = .closed
            return .close
        }
        self.failedAttempts += 1
        if let maximum = self.policy.maximumAttempts, self.failedAttempts > maximum {
            self.phase = .closed
            return .close
        }
        let delay = self.delay(attempt: self.failedAttempts, jitterUnit: jitterUnit)
        self.phase = .waiting(attempt: self.failedAttempts)
        return .reconnect(after: delay, attempt: self.failedAttempts)
    }

    /// The task was cancelled or failed for good (e.g. an event over the size limit).
    mutating func close() {
        self.phase = .closed
        self.restartRequested = false
    }

    // MARK: - Restart on demand

    /// The caller asks to drop the current connection (or attempt, or reconnection wait) and
    /// reconnect now. Returns `false`, changing nothing, before the first connection and once
    /// closed; `true` when the driver is to begin a restart (``beginRestart()``).
    mutating func requestRestart() -> Bool {
        switch self.phase {
        case .idle, .closed:
            return false
        case .connecting, .open, .waiting:
            self.restartRequested = true
            return true
        }
    }

    /// The driver stopped what it was doing for a requested restart and connects now: a
    /// reconnection without delay that starts a new count of failed attempts (it is the
    /// caller's decision, not a failure). Returns the attempt number to connect with (1), or
    /// `nil` when no restart is pending.
    mutating func beginRestart() -> Int? {
        guard self.restartRequested else { return nil }
        self.restartRequested = false
        switch self.phase {
        case .idle, .closed:
            return nil
        case .connecting, .open, .waiting:
            self.failedAttempts = 0
            self.phase = .connecting(attempt: 1)
            return 1
        }
    }

    /// The wait before reconnection attempt `attempt` (1-based).
    func delay(attempt: Int, jitterUnit: Double) -> TimeAmount {
        let base = self.serverRetry.map(Self.seconds) ?? self.policy.initialDelay
        let growth = pow(max(self.policy.multiplier, 1), Double(max(attempt - 1, 0)))
        var seconds = min(base * growth, self.policy.maximumDelay)
        let jitter = min(max(self.policy.jitter, 0), 1)
        seconds *= 1 - jitter * min(max(jitterUnit, 0), 1)
        return Self.duration(max(seconds, 0))
    }

    /// Whether a `Content-Type` value is `text/event-stream` (parameters allowed).
    static func isEventStream(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }

    static func duration(_ seconds: Double) -> TimeAmount {
        guard seconds.isFinite else { return .max }
        return .milliseconds((seconds * 1000).rounded())
    }

    static func seconds(_ duration: TimeAmount) -> Double {
        duration.seconds
    }
}
