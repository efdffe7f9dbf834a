public import SocketIO

extension SocketIOClient {
    /// The payload of a `.reconnectAttempt` client event, with its sign made explicit.
    ///
    /// socket.io-client-swift reports `reconnectAttempts - currentReconnectAttempt` as one
    /// `Int`. With a finite `reconnectAttempts` that is the number of attempts left; with the
    /// unlimited setting (`-1`) it is negative and only counts down.
    public enum ReconnectAttempt: Sendable, Hashable, CustomStringConvertible {
        /// A finite retry configuration: attempts left before the manager gives up.
        case remaining(Int)
        /// Unlimited retries; `raw` is the negative value socket.io-client-swift reported.
        case unlimited(raw: Int)

        /// Interprets socket.io-client-swift's raw value: `>= 0` is ``remaining(_:)``,
        /// negative is ``unlimited(raw:)``.
        public init(rawRemainingAttempts value: Int) {
            self = value >= 0 ? .remaining(value) : .unlimited(raw: value)
        }

        /// The raw value socket.io-client-swift reported.
        public var rawValue: Int {
            switch self {
            case .remaining(let count): count
            case .unlimited(let raw): raw
            }
        }

        /// `N attempts remaining` or `unlimited attempts`.
        public var description: String {
            switch self {
            case .remaining(let count): "\(count) attempts remaining"
            case .unlimited: "unlimited attempts"
            }
        }
    }
}
