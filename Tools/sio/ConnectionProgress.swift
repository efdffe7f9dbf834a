import CommandLineSupport
import EngineIOProtocol
import Foundation
import SocketIOConcurrency

/// The socket's lifecycle on stderr (connected, connection lost, reconnecting, reconnected,
/// errors, disconnected), read from its client events, and what a failed first connect needs
/// to explain itself.
///
/// Connect and reconnect are told apart by counting `connect` client events, in the handler
/// itself: the first is the connection, every later one a reconnection. The handlers run one
/// at a time on the manager's serial `handleQueue`, so the count is exact whichever thread
/// `connect(withPayload:timeout:)` resumes on. (A flag set by `run()` once `connect` returned
/// raced with the `connect` handler: `connect` returns on the `statusChange` to `.connected`,
/// delivered just before `connect` on the same queue, so `run()` often set the flag first and
/// the handler printed `reconnected` for the first connection.)
///
/// Before the first connection, `run()` reports the outcome: any error ends the attempt (sio
/// does not retry a first connect), so the manager's own reconnection events then are not
/// printed, nor is the error; a CONNECT_ERROR is kept for ``failureMessage(for:)``.
final class ConnectionProgress: @unchecked Sendable {
    // @unchecked: the mutable state is only touched under `lock`; `console` is immutable and Sendable.
    private let console: Console
    private let lock = NSLock()
    private var connects = 0
    private var refusal: String?
    private var lastError: String?

    init(console: Console) {
        self.console = console
    }

    /// Whether the socket connected at least once.
    var hasConnected: Bool { self.withLock { $0.connects > 0 } }

    /// The last error the socket reported while not connected, for the "still connecting" line.
    var lastErrorWhileConnecting: String? { self.withLock { $0.lastError } }

    /// Registers the handlers; `finished` gets `.disconnected` when the socket disconnects
    /// after connecting. Call before `connect`, so that these handlers run before the ones
    /// `connect(withPayload:timeout:)` registers.
    func observe(_ socket: SocketIOClient, finished: Completion<SIOExitStatus>) {
        socket.on(clientEvent: .connect) { _, _ in
            let count = self.withLock { state -> Int in
                state.connects += 1
                state.lastError = nil
                return state.connects
            }
            let sid = socket.sid ?? "?"
            self.console.progress(count == 1 ? "connected (sid \(sid))" : "reconnected (sid \(sid))")
        }
        socket.on(clientEvent: .reconnect) { items, _ in
            guard self.hasConnected else { return }
            self.console.progress("connection lost (\(items.first.map { "\($0)" } ?? "no reason")); reconnecting")
        }
        socket.on(clientEvent: .reconnectAttempt) { items, _ in
            guard self.hasConnected else { return }
            let remaining = items.first as? Int ?? -1
            self.console.progress(remaining >= 0 ? "reconnecting (\(remaining) attempts left)" : "reconnecting")
        }
        socket.on(clientEvent: .error) { items, _ in
            let text = Self.describe(errorItems: items)
            let connectedBefore = self.withLock { state -> Bool in
                if state.connects == 0 {
                    state.lastError = text
                    if Self.isConnectError(items) { state.refusal = text }
                }
                return state.connects > 0
            }
            if connectedBefore { self.console.progress("error: \(text)") }
        }
        socket.on(clientEvent: .disconnect) { items, _ in
            guard self.hasConnected else { return }
            self.console.progress("disconnected (\(items.first.map { "\($0)" } ?? "no reason"))")
            finished.finish(.disconnected)
        }
    }

    /// Why the first connect failed: the server's CONNECT_ERROR (its message, then its `data`
    /// as JSON) when it refused the namespace, else `error`.
    func failureMessage(for error: any Error) -> String {
        self.withLock { $0.refusal } ?? "\(error)"
    }

    // MARK: Error items

    /// A CONNECT_ERROR's object as the `error` client event carries it (socket.io-client-swift's
    /// form): `[["message": String, "data": Any?]]`.
    static func isConnectError(_ items: [Any]) -> Bool {
        items.count == 1 && (items[0] as? [String: Any])?["message"] is String
    }

    /// An `error` event's items as one line: a CONNECT_ERROR as `message {"data":"as JSON"}`
    /// (`message` alone without data), anything else as its items.
    static func describe(errorItems items: [Any]) -> String {
        if isConnectError(items), let object = items[0] as? [String: Any], let message = object["message"] as? String {
            guard let data = object["data"], !(data is NSNull) else { return message }
            return "\(message) \(JSONValue(socketItem: data).commandLineText)"
        }
        return items.map { item in
            if let text = item as? String { return text }
            return JSONValue(socketItem: item).commandLineText
        }.joined(separator: ", ")
    }

    private func withLock<Result>(_ body: (ConnectionProgress) -> Result) -> Result {
        self.lock.lock()
        defer { self.lock.unlock() }
        return body(self)
    }
}
