import RealtimeTime

// The machine's state: one enum whose cases carry what holds in them, so a fact that only
// exists in one phase (a GET in flight, the upgrade's step, the heartbeat deadline) cannot be
// set in another. The write buffer lives beside it (``EngineClientStateMachine/writeBuffer``):
// it is data, not a phase, and large; keeping it out of the enum avoids copying it when a case
// is rebuilt.
extension EngineClientStateMachine {
    enum State: Sendable, Hashable {
        /// ``start()`` not called yet.
        case idle
        /// Waiting for the `open` packet.
        case opening(Opening)
        /// Handshake done: the session runs.
        case open(Session)
        /// Client close over polling: waiting for the `POST` carrying `1`.
        case closing(Closing)
        /// Over.
        case closed(Closed)
    }

    /// The transport the handshake runs on.
    enum Opening: Sendable, Hashable {
        /// The handshake `GET` (in flight until it completes or fails).
        case polling(getInFlight: Bool)
        /// A WebSocket (opening, or open and waiting for `open`).
        case webSocket
    }

    /// An open session.
    struct Session: Sendable, Hashable {
        var handshake: EngineHandshake
        var link: Link
        /// When the session is considered dead without news from the server.
        var heartbeatDeadline: MonotonicInstant
        /// v3 only: when the client sends its next ping (`nil` while waiting for the pong, and in v4).
        var nextPingAt: MonotonicInstant?
    }

    /// What carries an open session.
    enum Link: Sendable, Hashable {
        case polling(Polling)
        case webSocket
    }

    /// HTTP long-polling: at most one `GET` and one `POST` in flight, and the upgrade's step.
    struct Polling: Sendable, Hashable {
        var getInFlight = false
        var postInFlight = false
        var upgrade = Upgrade.none
    }

    /// The upgrade to WebSocket of a polling session.
    enum Upgrade: Sendable, Hashable {
        /// No upgrade running (not offered, not allowed, failed, or done).
        case none
        /// The WebSocket is being opened.
        case connecting
        /// `2probe` sent, waiting for `3probe`.
        case probing
        /// `3probe` received; polling paused until the in-flight `GET`/`POST` finish.
        case pausing
    }

    /// A client close over polling (any upgrade dropped).
    struct Closing: Sendable, Hashable {
        var handshake: EngineHandshake
        var getInFlight: Bool
        var postInFlight: Bool
        /// Still armed: if it fires first, the session ends without waiting for the `POST`.
        var heartbeatDeadline: MonotonicInstant
    }

    /// An ended session, with what observers still read.
    struct Closed: Sendable, Hashable {
        var reason: EngineCloseReason
        /// The transport that carried the session last.
        var transport: EngineTransport
        var handshake: EngineHandshake?
    }

    // MARK: Derived facts

    var handshake: EngineHandshake? {
        switch self.state {
        case .idle, .opening: return nil
        case .open(let session): return session.handshake
        case .closing(let closing): return closing.handshake
        case .closed(let closed): return closed.handshake
        }
    }

    var transport: EngineTransport {
        switch self.state {
        case .idle, .opening(.polling), .closing: return .polling
        case .opening(.webSocket): return .webSocket
        case .open(let session):
            if case .webSocket = session.link { return .webSocket }
            return .polling
        case .closed(let closed): return closed.transport
        }
    }

    /// The polling state of an open polling session.
    var polling: Polling? {
        guard case .open(let session) = self.state, case .polling(let polling) = session.link else { return nil }
        return polling
    }

    var upgrade: Upgrade { self.polling?.upgrade ?? .none }

    var getInFlight: Bool {
        switch self.state {
        case .opening(.polling(let getInFlight)): return getInFlight
        case .open: return self.polling?.getInFlight ?? false
        case .closing(let closing): return closing.getInFlight
        case .idle, .opening(.webSocket), .closed: return false
        }
    }

    var postInFlight: Bool {
        switch self.state {
        case .open: return self.polling?.postInFlight ?? false
        case .closing(let closing): return closing.postInFlight
        case .idle, .opening, .closed: return false
        }
    }

    /// A WebSocket exists (opening or open), either the session's or an upgrade probe's.
    var webSocketActive: Bool {
        switch self.state {
        case .opening(.webSocket): return true
        case .open(let session):
            switch session.link {
            case .webSocket: return true
            case .polling(let polling): return polling.upgrade != .none
            }
        case .idle, .opening(.polling), .closing, .closed: return false
        }
    }

    // MARK: Changing a case in place

    /// Runs `body` on the open session; `nil` (and no change) in any other state.
    mutating func withSession<R>(_ body: (inout Session) -> R) -> R? {
        guard case .open(var session) = self.state else { return nil }
        defer { self.state = .open(session) }
        return body(&session)
    }

    /// Runs `body` on the open session's polling state; `nil` (and no change) unless the
    /// session is open over polling.
    mutating func withPolling<R>(_ body: (inout Polling) -> R) -> R? {
        guard case .open(var session) = self.state, case .polling(var polling) = session.link else { return nil }
        defer {
            session.link = .polling(polling)
            self.state = .open(session)
        }
        return body(&polling)
    }
}
