public import Dispatch

/// The manager's own options, parsed from a `SocketIOClientConfiguration` in one place
/// (``apply(_:)``, what upstream's `setConfigs` does for the manager) and kept apart from its
/// runtime state. The public setters (`reconnects`, `reconnectWait`, …) change them; as
/// upstream's, the reconnection options are read when a reconnection decides, and the
/// engine's options (see `SocketEngineOptions`) apply at the engine's next connect.
struct SocketManagerOptions: Sendable {
    var forceNew = false
    var handleQueue = DispatchQueue.main
    var reconnects = true
    var reconnectAttempts = -1
    var reconnectWait = 10
    var reconnectWaitMax = 30
    var randomizationFactor = 0.5
    var version = SocketIOVersion.three

    /// What `.log` and `.logger` ask of the process-wide logger (not stored: upstream sets
    /// `DefaultSocketLogger` itself).
    struct LoggerUpdate {
        var log: Bool?
        var logger: SocketLogger?
    }

    /// Sets what `config` names; options it does not name keep their values.
    mutating func apply(_ config: SocketIOClientConfiguration) -> LoggerUpdate {
        var update = LoggerUpdate()
        for option in config {
            switch option {
            case let .forceNew(new): self.forceNew = new
            case let .handleQueue(queue): self.handleQueue = queue
            case let .reconnects(reconnects): self.reconnects = reconnects
            case let .reconnectAttempts(attempts): self.reconnectAttempts = attempts
            case let .reconnectWait(wait): self.reconnectWait = abs(wait)
            case let .reconnectWaitMax(wait): self.reconnectWaitMax = abs(wait)
            case let .randomizationFactor(factor): self.randomizationFactor = factor
            case let .log(log): update.log = log
            case let .logger(logger): update.logger = logger
            case let .version(num): self.version = num
            default: continue
            }
        }
        return update
    }
}
