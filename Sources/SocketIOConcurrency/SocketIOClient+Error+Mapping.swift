import Foundation
import SocketIO

// MARK: - Mapping socket.io-client-swift signals

extension SocketIOClient.Error {
    /// upstream's `SocketIOClient.emit` failure text when the socket is not connected.
    static let notConnectedMessage = "Tried emitting when not connected"

    /// Maps the items of a `.error` client event.
    ///
    /// - Parameters:
    ///   - event: The operation's event (`nil` when the error is not tied to one).
    ///   - notConnectedEvent: The event ``notConnected(event:)`` names when `event` is `nil`
    ///     (`"error"` for the `.error` client event, as the seed package names it).
    init(clientErrorItems items: [Any], event: String?, notConnectedEvent: String = "") {
        if items.count == 1, let message = items[0] as? String {
            if message == Self.notConnectedMessage {
                self = .notConnected(event: event ?? notConnectedEvent)
            } else {
                self = .clientError(event: event, message: message, source: Self.source(of: message))
            }
            return
        }
        // upstream's emit failure: [eventName, items, error].
        if items.count == 3, let failedEvent = items[0] as? String {
            if let error = items[2] as? SocketIOClient.Error {
                self = error
            } else if let error = items[2] as? any Swift.Error {
                self = .invalidSocketData(event: failedEvent, message: String(describing: error))
            } else {
                self = .clientError(event: failedEvent, message: Self.text(of: items[2]), source: .socketIO)
            }
            return
        }
        // A CONNECT_ERROR packet's payload: [{"message": ..., "data": ...}].
        if items.count == 1, let object = items[0] as? [String: Any], let message = object["message"] as? String {
            // `data` as socket.io-client's `err.data`: absent is nil, JSON null is `.null`.
            let data = object["data"].flatMap { try? SocketIOClient.Payload(socketValue: $0) }
            self = .clientError(event: event, message: message, source: .socketIO(data: data))
            return
        }
        if let error = items.last as? SocketIOClient.Error {
            self = error
            return
        }
        let message = items.map(Self.text(of:)).joined(separator: " ")
        self = .clientError(
            event: event, message: message.isEmpty ? "Socket.IO client error" : message,
            source: Self.source(of: message))
    }

    /// Maps an ack's items: `["NO ACK"]` is upstream's timeout sentinel.
    init?(ackItems items: [Any], event: String, timeout: TimeInterval) {
        guard items.count == 1, let first = items[0] as? String, first == "NO ACK" else {
            return nil
        }
        self = .ackTimedOut(event: event, timeout: timeout)
    }

    /// Checks a caller's timeout: it must be finite and `> 0`.
    static func validate(timeout: TimeInterval) throws(SocketIOClient.Error) {
        guard timeout.isFinite, timeout > 0 else { throw .invalidTimeout(timeout) }
    }

    private static func source(of message: String) -> Source {
        let lowered = message.lowercased()
        if lowered.contains("engine") { return .engine }
        let transportWords = [
            "websocket", "polling", "transport", "connection", "refused", "tls",
            "certificate", "dns", "host", "network", "timed out",
        ]
        if transportWords.contains(where: lowered.contains) { return .transport }
        return .socketIO
    }

    private static func text(of item: Any) -> String {
        if let string = item as? String { return string }
        if let payload = try? SocketIOClient.Payload(socketValue: item) { return payload.description }
        return String(describing: item)
    }
}
