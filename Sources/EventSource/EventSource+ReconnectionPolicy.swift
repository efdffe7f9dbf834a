public import Foundation

extension EventSource {
    /// When and how a ``DataTask`` reconnects after its connection ends.
    ///
    /// Reconnection is off by default (``disabled``): a data task then makes one connection
    /// and its event sequence ends with `.closed`, so loops that reconnect by themselves keep
    /// their meaning. With a policy such as ``exponentialBackoff(initialDelay:maximumDelay:multiplier:jitter:maximumAttempts:healthyConnectionInterval:reconnectsAfterEndOfStream:reconnectsNonIdempotentRequests:prepareRequest:)``
    /// the task reconnects after network errors (reported as `.error`, then `.open` again once
    /// reconnected) and after the server ends the stream, as the WHATWG EventSource does
    /// (HTML §9.2.3):
    /// - it waits the server's `retry:` time (or ``initialDelay``), multiplied by ``multiplier``
    ///   for each consecutive failed attempt, capped at ``maximumDelay``, minus up to
    ///   ``jitter`` of it at random;
    /// - it gives up after ``maximumAttempts`` consecutive attempts (`.error`, then `.closed`);
    /// - a connection that stayed open ``healthyConnectionInterval`` resets the count;
    /// - it sends `Last-Event-ID` with the last event ID, and the request's method, headers
    ///   and body again, after ``prepareRequest`` (if any) refreshed them;
    /// - it never sends a non-idempotent request again (RFC 9110 §9.2.2: a `POST`, such as an
    ///   LLM completion, whose repetition would run it twice) unless
    ///   ``reconnectsNonIdempotentRequests`` is set; ``EventSource/DataTask/restart()`` still does,
    ///   since the app asks for it;
    /// - it stops for good on HTTP 204, on any other status than 200, on a wrong content
    ///   type, and on an event larger than ``EventSource/maximumEventSize``.
    ///
    /// ```swift
    /// let eventSource = EventSource(reconnectionPolicy: .exponentialBackoff(
    ///     maximumAttempts: 10,
    ///     prepareRequest: { request, _ in
    ///         var request = request
    ///         request.setValue("Bearer \(await tokens.fresh())", forHTTPHeaderField: "Authorization")
    ///         return request
    ///     }))
    /// ```
    public struct ReconnectionPolicy: Sendable {
        /// Whether the task reconnects at all.
        public var isEnabled: Bool
        /// The delay before the first reconnection when the server sent no `retry:` field.
        public var initialDelay: TimeInterval
        /// The longest delay between two attempts.
        public var maximumDelay: TimeInterval
        /// The factor applied to the delay for each consecutive failed attempt.
        public var multiplier: Double
        /// The fraction (0...1) of each delay removed at random, so clients spread out.
        public var jitter: Double
        /// Consecutive reconnection attempts before giving up; `nil` for no limit.
        public var maximumAttempts: Int?
        /// How long a connection must stay open to reset the attempt count.
        public var healthyConnectionInterval: TimeInterval
        /// Whether the end of the response body (the server closing a healthy stream) is
        /// followed by a reconnection. Network errors always are.
        public var reconnectsAfterEndOfStream: Bool
        /// Whether a request whose method is not idempotent (RFC 9110 §9.2.2: anything but GET,
        /// HEAD, OPTIONS, TRACE, PUT and DELETE; a `POST`, typically) is sent again after an
        /// error or the end of its stream. Off by default: a finite `POST` stream, such as an
        /// LLM completion, then ends with its response and a failure is reported, never
        /// repeated (and billed) behind the app's back. Set it for a `POST` that subscribes to
        /// an endless stream and is safe to resend.
        public var reconnectsNonIdempotentRequests: Bool = false
        /// Called before each reconnection (not the first connection) with the request about to
        /// be sent (its `Last-Event-ID` already set) and the attempt number (1, 2, ...);
        /// returns the request to send, e.g. with a refreshed `Authorization` header.
        public var prepareRequest: (@Sendable (_ request: URLRequest, _ attempt: Int) async -> URLRequest)?

        /// No reconnection: one connection per data task.
        public static var disabled: ReconnectionPolicy {
            ReconnectionPolicy(
                isEnabled: false, initialDelay: 3, maximumDelay: 30, multiplier: 2, jitter: 0,
                maximumAttempts: 0, healthyConnectionInterval: 30,
                reconnectsAfterEndOfStream: false, prepareRequest: nil)
        }

        /// Reconnection with exponential backoff and jitter.
        ///
        /// - Parameters:
        ///   - initialDelay: the delay when the server sent no `retry:` (WHATWG leaves it to
        ///     the client; browsers use a few seconds).
        ///   - maximumDelay: the cap on any delay, including the server's `retry:`.
        ///   - multiplier: growth per consecutive failed attempt.
        ///   - jitter: the fraction of each delay removed at random.
        ///   - maximumAttempts: consecutive attempts before giving up; `nil` for no limit.
        ///   - healthyConnectionInterval: open time that resets the attempt count.
        ///   - reconnectsAfterEndOfStream: whether a stream the server ends is resumed.
        ///   - reconnectsNonIdempotentRequests: whether a `POST` (any non-idempotent method) is
        ///     sent again; off by default (see ``reconnectsNonIdempotentRequests``).
        ///   - prepareRequest: refreshes the request before each reconnection.
        public static func exponentialBackoff(
            initialDelay: TimeInterval = 3,
            maximumDelay: TimeInterval = 30,
            multiplier: Double = 2,
            jitter: Double = 0.2,
            maximumAttempts: Int? = nil,
            healthyConnectionInterval: TimeInterval = 30,
            reconnectsAfterEndOfStream: Bool = true,
            reconnectsNonIdempotentRequests: Bool = false,
            prepareRequest: (@Sendable (_ request: URLRequest, _ attempt: Int) async -> URLRequest)? = nil
        ) -> ReconnectionPolicy {
            var policy = ReconnectionPolicy(
                isEnabled: true, initialDelay: initialDelay, maximumDelay: maximumDelay,
                multiplier: multiplier, jitter: jitter, maximumAttempts: maximumAttempts,
                healthyConnectionInterval: healthyConnectionInterval,
                reconnectsAfterEndOfStream: reconnectsAfterEndOfStream,
                prepareRequest: prepareRequest)
            policy.reconnectsNonIdempotentRequests = reconnectsNonIdempotentRequests
            return policy
        }

        /// A policy with every value given but ``reconnectsNonIdempotentRequests`` (off; set it
        /// on the result).
        public init(
            isEnabled: Bool, initialDelay: TimeInterval, maximumDelay: TimeInterval, multiplier: Double,
            jitter: Double, maximumAttempts: Int?, healthyConnectionInterval: TimeInterval,
            reconnectsAfterEndOfStream: Bool,
            prepareRequest: (@Sendable (_ request: URLRequest, _ attempt: Int) async -> URLRequest)?
        ) {
            self.isEnabled = isEnabled
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.multiplier = multiplier
            self.jitter = jitter
            self.maximumAttempts = maximumAttempts
            self.healthyConnectionInterval = healthyConnectionInterval
            self.reconnectsAfterEndOfStream = reconnectsAfterEndOfStream
            self.prepareRequest = prepareRequest
        }
    }
}
