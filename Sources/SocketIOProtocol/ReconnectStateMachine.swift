package import RealtimeTime

/// The manager's reconnection: when a closed engine is reopened, how often, and when the
/// namespaces rejoin. Sans-I/O; time and randomness are inputs.
///
/// socket.io-client-swift 16.x `SocketManager` (`_engineDidClose`, `tryReconnect`,
/// `_tryReconnect`, the `status` `didSet` that resets the count) as a machine:
/// - an engine close while the manager is not disconnected by the user and `reconnects` is on
///   starts reconnecting once (``Action/beginReconnecting``: connected sockets go back to
///   connecting) and makes the first try at once;
/// - every try (``Action/attempt(eventValue:retryAfter:timer:)``) connects a new engine and
///   arms one timer; when it fires (``retryTimerFired(_:reconnects:userDisconnected:random:)``)
///   and the manager is still reconnecting, the next try follows, with ``ReconnectBackoff``'s
///   delay, until the budget is spent (``Action/giveUp``, "Reconnect Failed");
/// - an engine open ends reconnecting, resets the count and rejoins every namespace
///   (``Action/rejoin``).
///
/// Each try's timer carries a number: a timer of an earlier try (or an earlier round of
/// reconnecting) is recognised as stale and ignored.
///
/// The machine also owns the manager's ``status`` (upstream's `SocketManager.status`):
/// ``connectRequested()`` (`connect()`) sets `connecting`, ``transportOpened()`` `connected`,
/// an engine close `notConnected` unless the user disconnected (``disconnectRequested()``,
/// `disconnect()`, sets `disconnected`), and giving up `disconnected`. The manager's inputs
/// without a `userDisconnected:` argument read that fact from the status.
package struct ReconnectStateMachine: Sendable, Hashable {
    /// What the manager must do, in order.
    package enum Action: Sendable, Hashable {
        /// The engine closed for good: every socket is told the transport closed (no reconnect).
        case disconnect
        /// Reconnecting starts: every socket is told the transport closed and a reconnect follows.
        case beginReconnecting
        /// Report `reconnectAttempt` with `eventValue`, connect a new engine, and report
        /// ``ReconnectStateMachine/retryTimerFired(_:reconnects:userDisconnected:random:)`` with
        /// `timer` after `retryAfter`.
        case attempt(eventValue: Int, retryAfter: TimeAmount, timer: Int)
        /// The budget is spent: close the engine and disconnect with "Reconnect Failed".
        case giveUp
        /// The engine opened: every waiting namespace (re)joins.
        case rejoin
    }

    /// The schedule (wait, maximum, jitter, budget) and the tries made.
    package var backoff: ReconnectBackoff
    /// `true` from the first try until an open, the budget's end or a user disconnect.
    package private(set) var isReconnecting = false
    /// The number of the latest try's timer.
    private var timer = 0
    /// The manager's status; see the type's documentation.
    package private(set) var status: ConnectionStatus = .notConnected

    package init(backoff: ReconnectBackoff = ReconnectBackoff()) {
        self.backoff = backoff
    }

    /// Tries made since the last open.
    package var currentAttempt: Int { self.backoff.currentAttempt }

    // MARK: Inputs from the manager's entry points

    /// `connect()`: the status becomes `connecting`, unless connected or a first connect is
    /// under way.
    ///
    /// While a reconnect try is under way (`connecting` with tries made) it is allowed, as
    /// upstream (socket.io-client-swift PR #1375), so a try that hangs does not hold every later
    /// one back.
    ///
    /// - Returns: `true` when the manager connects (a new engine when it has none, or `forceNew`).
    package mutating func connectRequested() -> Bool {
        if self.status == .connected || (self.status == .connecting && self.currentAttempt == 0) {
            return false
        }
        self.status = .connecting
        return true
    }

    /// `disconnect()`: the status becomes `disconnected` and no further try is made; the
    /// engine's close that follows reports ``Action/disconnect``.
    package mutating func disconnectRequested() {
        self.status = .disconnected
        self.stop()
    }

    /// The engine closed: ``transportClosed(reconnects:userDisconnected:random:)`` with the
    /// user's disconnect read from the status.
    package mutating func transportClosed(reconnects: Bool, random: Double) -> [Action] {
        self.transportClosed(reconnects: reconnects, userDisconnected: self.status == .disconnected, random: random)
    }

    /// A try's timer fired: ``retryTimerFired(_:reconnects:userDisconnected:random:)`` with the
    /// user's disconnect read from the status.
    package mutating func retryTimerFired(_ timer: Int, reconnects: Bool, random: Double) -> [Action] {
        self.retryTimerFired(timer, reconnects: reconnects, userDisconnected: self.status == .disconnected, random: random)
    }

    // MARK: Inputs from the engine and the retry timers (the user's disconnect given)

    /// The engine closed; the status becomes `notConnected` unless the user disconnected.
    ///
    /// - Parameters:
    ///   - reconnects: the manager's `reconnects` setting.
    ///   - userDisconnected: the manager was disconnected by the user (status `.disconnected`).
    ///   - random: uniform in `0..<1`, the jitter of the first try's delay.
    package mutating func transportClosed(reconnects: Bool, userDisconnected: Bool, random: Double) -> [Action] {
        if !userDisconnected {
            self.status = .notConnected
        }
        if userDisconnected || !reconnects {
            return [.disconnect]
        }
        guard !self.isReconnecting else { return [] }
        self.isReconnecting = true
        return [.beginReconnecting] + self.nextAttempt(random: random)
    }

    /// A try's timer fired: the next try, unless the manager stopped reconnecting or the timer
    /// is stale.
    package mutating func retryTimerFired(_ timer: Int, reconnects: Bool, userDisconnected: Bool, random: Double) -> [Action] {
        guard timer == self.timer, self.isReconnecting else { return [] }
        guard reconnects, !userDisconnected else {
            // upstream's `_tryReconnect` guard: stop quietly (and let a later close start over).
            self.isReconnecting = false
            return []
        }
        return self.nextAttempt(random: random)
    }

    /// The engine opened (the first connect or a successful try): the status becomes `connected`.
    package mutating func transportOpened() -> [Action] {
        self.status = .connected
        self.isReconnecting = false
        self.backoff.reset()
        self.timer += 1
        return [.rejoin]
    }

    /// No further try; the status is not changed (``disconnectRequested()`` is the manager's
    /// `disconnect()`).
    package mutating func stop() {
        self.isReconnecting = false
        self.timer += 1
    }

    private mutating func nextAttempt(random: Double) -> [Action] {
        switch self.backoff.nextAttempt(random: random) {
        case .giveUp:
            // Disconnected: a later `connect` starts a fresh count.
            self.status = .disconnected
            self.isReconnecting = false
            self.backoff.reset()
            self.timer += 1
            return [.giveUp]
        case .attempt(_, let eventValue, let retryAfter):
            self.timer += 1
            return [.attempt(eventValue: eventValue, retryAfter: retryAfter, timer: self.timer)]
        }
    }
}
