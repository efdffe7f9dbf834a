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
        /// Where a ``clientError(event:message:source:)`` came from, and what the server added.
        ///
        /// One of four layers: ``socketIO``, ``engine``, ``transport`` and ``application``,
        /// matched as before (`catch .clientError(_, let message, .socketIO)`). A server's
        /// CONNECT_ERROR (`next(err)` with `err.data = …` in socket.io) comes from
        /// ``socketIO`` with the error's `data` in ``data`` (socket.io-client's `err.data`);
        /// ``Error/data`` reads it from the error.
        ///
        /// ```swift
        /// do {
        ///     try await socket.connect(withPayload: ["token": token])
        /// } catch .clientError(_, let message, .socketIO) {
        ///     print("refused:", message)
        /// }
        /// ```
        ///
        /// - Important: Two sources are equal when they name the same layer, whatever their
        ///   ``data``: patterns such as `.socketIO` match a CONNECT_ERROR with data too.
        public struct Source: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            /// The layer's name: `socketIO`, `engine`, `transport` or `application`.
            public let rawValue: String
            /// The `data` of the server's CONNECT_ERROR, when it sent one; `nil` otherwise.
            public let data: SocketIOClient.Payload?

            /// The source named `rawValue` (one of the four layers), or `nil`.
            public init?(rawValue: String) {
                guard Self.layers.contains(rawValue) else { return nil }
                self.rawValue = rawValue
                self.data = nil
            }

            private init(layer: String, data: SocketIOClient.Payload? = nil) {
                self.rawValue = layer
                self.data = data
            }

            private static let layers: Set<String> = ["socketIO", "engine", "transport", "application"]

            /// The Socket.IO layer (namespace, packets, the server's CONNECT_ERROR).
            public static let socketIO = Source(layer: "socketIO")
            /// The Engine.IO layer (session, heartbeat, engine protocol).
            public static let engine = Source(layer: "engine")
            /// The transport (WebSocket, HTTP long-polling, the upgrade between them).
            public static let transport = Source(layer: "transport")
            /// This package's async layer.
            public static let application = Source(layer: "application")

            /// The Socket.IO layer, for a CONNECT_ERROR that carried `data`.
            public static func socketIO(data: SocketIOClient.Payload?) -> Source {
                Source(layer: "socketIO", data: data)
            }

            /// The layer's name (``rawValue``).
            public var description: String { self.rawValue }

            /// Equal when both name the same layer; ``data`` is not compared.
            public static func == (lhs: Source, rhs: Source) -> Bool { lhs.rawValue == rhs.rawValue }

            /// Hashes the layer only, as `==` compares it.
            public func hash(into hasher: inout Hasher) { hasher.combine(self.rawValue) }
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
                let data = source.data.map { " (data: \($0))" } ?? ""
                return "\(source.rawValue) error\(event.map { " on '\($0)'" } ?? ""): \(message)\(data)"
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

extension SocketIOClient.Error {
    /// The `data` of the server's CONNECT_ERROR (socket.io-client's `err.data`), when this is
    /// the ``clientError(event:message:source:)`` of a refused connection that carried one.
    ///
    /// ```swift
    /// do {
    ///     try await socket.connect(withPayload: ["token": token])
    /// } catch {
    ///     if error.data?["reason"] == "expired" { token = try await refresh() }
    /// }
    /// ```
    public var data: SocketIOClient.Payload? {
        guard case .clientError(_, _, let source) = self else { return nil }
        return source.data
    }
}

extension SocketIOClient.Error: LocalizedError {
    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { self.description }
}
