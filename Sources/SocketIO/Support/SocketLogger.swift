import Foundation
import RealtimeSync

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
/// Off by default. Thread-safe, and free when off: which logger is current and whether the
/// default one prints are two atomic switches, so a log call with logging off reads two
/// Booleans and takes no lock. A logger an app installs sits behind a lock, read only while
/// it is installed (it decides itself, through its `log`, whether to print).
final class DefaultSocketLogger: SocketLogger, Sendable {
    /// Whether this logger prints.
    private let printing = SocketLogSwitch(false)

    var log: Bool {
        get { self.printing.isOn }
        set { self.printing.set(newValue) }
    }

    /// The logger used while no other is installed.
    private static let standard = DefaultSocketLogger()
    /// `true` while ``installed`` holds an app's logger.
    private static let usesInstalled = SocketLogSwitch(false)
    private static let installed = SocketLock<UncheckedSendable<SocketLogger>?>(nil)

    /// The logger every part of the library writes to.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // (upstream's name: apps set `DefaultSocketLogger.Logger`)
    static var Logger: SocketLogger {
        get {
            guard self.usesInstalled.isOn, let logger = self.installed.withLock({ $0?.value }) else {
                return self.standard
            }
            return logger
        }
        set {
            if let standard = newValue as? DefaultSocketLogger, standard === self.standard {
                self.usesInstalled.set(false)
                self.installed.withLock { $0 = nil }
            } else {
                self.installed.withLock { $0 = UncheckedSendable(newValue) }
                self.usesInstalled.set(true)
            }
        }
    }
}
