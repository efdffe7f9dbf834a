import RealtimeSync

/// Settles, across threads, whether a deadline's timer or the operation it bounds finished
/// first, so a failure is reported as a timeout exactly when the timer won.
final class TimeoutFlag: Sendable {
    private enum State {
        case armed
        case fired
        case disarmed
    }

    private let state = LockedValue(State.armed)

    init() {}

    var hasFired: Bool { self.state.withLock { $0 == .fired } }

    /// The timer's side: `true` if the deadline won (then the caller ends the operation),
    /// `false` if the operation was disarmed first.
    func fire() -> Bool {
        self.state.withLock { state -> Bool in
            guard state == .armed else { return false }
            state = .fired
            return true
        }
    }

    /// The operation's side: `true` if it finished first (the timer does nothing now), `false`
    /// if the deadline already fired.
    func disarm() -> Bool {
        self.state.withLock { state -> Bool in
            guard state == .armed else { return state == .disarmed }
            state = .disarmed
            return true
        }
    }
}
