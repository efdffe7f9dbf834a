import Foundation

/// Represents a class will log client events.
///
/// - Important: The library never passes auth payloads, tokens, cookies or event data to a
///   logger: messages carry event names, namespaces, packet types, sizes and reasons only.
public protocol SocketLogger: AnyObject {
    // MARK: Properties

    /// Whether to log or not
    var log: Bool { get set }

    // MARK: Methods

    /// Normal log messages
    ///
    /// - parameter message: The message being logged.
    /// - parameter type: The type of entity that called for logging.
    func log(_ message: @autoclosure () -> String, type: String)

    /// Error Messages
    ///
    /// - parameter message: The message being logged.
    /// - parameter type: The type of entity that called for logging.
    func error(_ message: @autoclosure () -> String, type: String)
}

extension SocketLogger {
    /// Default implementation.
    public func log(_ message: @autoclosure () -> String, type: String) {
        guard log else { return }

        abstractLog("LOG", message: message(), type: type)
    }

    /// Default implementation.
    public func error(_ message: @autoclosure () -> String, type: String) {
        guard log else { return }

        abstractLog("ERROR", message: message(), type: type)
    }

    private func abstractLog(_ logType: String, message: String, type: String) {
        NSLog("%@", "\(logType) \(type): \(message)")
    }
}

/// The process-wide logger, replaced by the `.logger` option and switched by `.log`.
///
/// Off by default. Thread-safe: the current logger is kept behind a lock.
final class DefaultSocketLogger: SocketLogger, @unchecked Sendable {
    // `@unchecked Sendable`: `log` is the only state and it is kept behind `logFlag`'s lock.
    private let logFlag = SocketLock(false)

    var log: Bool {
        get { self.logFlag.withLock { $0 } }
        set { self.logFlag.withLock { $0 = newValue } }
    }

    private static let current = SocketLock<UncheckedSendable<SocketLogger>>(UncheckedSendable(DefaultSocketLogger()))

    /// The logger every part of the library writes to.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // (upstream's name: apps set `DefaultSocketLogger.Logger`)
    static var Logger: SocketLogger {
        get { self.current.withLock { $0.value } }
        set { self.current.withLock { $0 = UncheckedSendable(newValue) } }
    }
}
