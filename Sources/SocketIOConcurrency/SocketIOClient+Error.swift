public import Foundation
public import SocketIO

extension SocketIOClient {
    /// The one error type every throwing API of SocketIOConcurrency throws.
    ///
    /// socket.io-client-swift reports failures as untyped signals: `.error` client events whose
    /// items are strings, dictionaries or `[event, items, error]` triples, the `"NO ACK"` ack
    /// sentinel, and `.disconnect` events. They are normalized here:
    ///
    /// | socket.io-client-swift signal | Error |
    /// |---|---|
    /// | `.error` `["Tried emitting when not connected"]` | ``notConnected(event:)`` |
    /// | `.error` `[eventName, items, error]` | ``invalidSocketData(event:message:)`` (a thrown error) or ``clientError(event:message:source:)`` |
    /// | `.error` `[message]` or a CONNECT_ERROR `[{"message": ...}]` | ``clientError(event:message:source:)`` |
    /// | ack `["NO ACK"]` | ``ackTimedOut(event:timeout:)`` |
    /// | `.disconnect` `[reason]` while waiting | ``disconnected(event:reason:)`` |
    ///
    /// ```swift
    /// do {
    ///     let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3)
    /// } catch .ackTimedOut(let event, let timeout) {
    ///     print("\(event): no ack within \(timeout) s")
    /// } catch {
    ///     print(error)
    /// }
    /// ```
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// Where a ``clientError(event:message:source:)`` came from.
        public enum Source: String, Sendable, Hashable {
            /// The Socket.IO layer (namespace, packets, the server's CONNECT_ERROR).
            case socketIO
            /// The Engine.IO layer (session, heartbeat, engine protocol).
            case engine
            /// The transport (WebSocket, HTTP long-polling, the upgrade between them).
            case transport
            /// This package's async layer.
            case application
        }

        /// The calling task was cancelled.
        case cancelled
        /// A timeout was zero, negative, NaN or infinite; it must be a finite number of seconds `> 0`.
        case invalidTimeout(TimeInterval)
        /// The socket was not connected when `event` was to be emitted.
        case notConnected(event: String)
        /// The server did not acknowledge `event` within `timeout` seconds.
        case ackTimedOut(event: String, timeout: TimeInterval)
        /// The namespace was not connected within `timeout` seconds.
        case connectTimedOut(timeout: TimeInterval)
        /// The disconnection was not confirmed within `timeout` seconds.
        case disconnectTimedOut(timeout: TimeInterval)
        /// The socket disconnected while the operation on `event` was waiting.
        case disconnected(event: String, reason: SocketIOClient.DisconnectReason)
        /// socket.io-client-swift reported an error (`.error` client event).
        case clientError(event: String?, message: String, source: SocketIOClient.Error.Source)
        /// Data could not be converted to or from its socket representation.
        case invalidSocketData(event: String?, message: String)
        /// A received value has a type ``SocketIOClient/Payload`` cannot represent.
        case unsupportedPayloadType(typeName: String)
        /// A received dictionary has a key that is not a `String`.
        case unsupportedDictionaryKeyType(typeName: String)

        /// A one-line English description with the case's values, e.g.
        /// `no ack for 'message:send' within 3.0 s`.
        public var description: String {
            switch self {
            case .cancelled:
                return "cancelled"
            case .invalidTimeout(let timeout):
                return "invalid timeout \(timeout) s (must be finite and > 0)"
            case .notConnected(let event):
                return "not connected (event '\(event)')"
            case .ackTimedOut(let event, let timeout):
                return "no ack for '\(event)' within \(timeout) s"
            case .connectTimedOut(let timeout):
                return "not connected within \(timeout) s"
            case .disconnectTimedOut(let timeout):
                return "disconnection not confirmed within \(timeout) s"
            case .disconnected(let event, let reason):
                return "disconnected (\(reason)) while waiting on '\(event)'"
            case .clientError(let event, let message, let source):
                return "\(source.rawValue) error\(event.map { " on '\($0)'" } ?? ""): \(message)"
            case .invalidSocketData(let event, let message):
                return "invalid socket data\(event.map { " for '\($0)'" } ?? ""): \(message)"
            case .unsupportedPayloadType(let typeName):
                return "unsupported payload type \(typeName)"
            case .unsupportedDictionaryKeyType(let typeName):
                return "unsupported dictionary key type \(typeName)"
            }
        }
    }
}

extension SocketIOClient.Error: LocalizedError {
    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { self.description }
}
