import RealtimeSync

/// Records, across tasks, that a deadline fired (so a failure can be reported as a timeout).
final class TimeoutFlag: Sendable {
    private let fired = LockedValue(false)

    init() {}

    var hasFired: Bool { self.fired.withLock { $0 } }

    func fire() { self.fired.withLock { $0 = true } }
}
