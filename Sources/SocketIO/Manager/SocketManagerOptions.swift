public import Dispatch
import SocketIOProtocol

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
    var parser = SocketParser.json
    var sendBuffer = 0
    var retries = 0
    var ackTimeout = 0.0

    /// The reconnection settings as they are now, for the session machine's next decision.
    var reconnection: SocketSessionMachine.Reconnection {
        SocketSessionMachine.Reconnection(
            reconnects: self.reconnects, wait: Double(self.reconnectWait), waitMax: Double(self.reconnectWaitMax),
            randomizationFactor: self.randomizationFactor, attempts: self.reconnectAttempts)
    }

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
            case .forceNew(let new): self.forceNew = new
            case .handleQueue(let queue): self.handleQueue = queue
            case .reconnects(let reconnects): self.reconnects = reconnects
            case .reconnectAttempts(let attempts): self.reconnectAttempts = attempts
            case .reconnectWait(let wait): self.reconnectWait = abs(wait)
            case .reconnectWaitMax(let wait): self.reconnectWaitMax = abs(wait)
            case .randomizationFactor(let factor): self.randomizationFactor = factor
            case .log(let log): update.log = log
            case .logger(let logger): update.logger = logger
            case .version(let num): self.version = num
            case .parser(let parser): self.parser = parser
            case .sendBuffer(let limit): self.sendBuffer = max(0, limit)
            case .retries(let retries): self.retries = max(0, retries)
            case .ackTimeout(let seconds): self.ackTimeout = seconds.isFinite ? max(0, seconds) : 0
            default: continue
            }
        }
        return update
    }
}
