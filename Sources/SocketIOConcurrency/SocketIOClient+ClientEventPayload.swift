public import SocketIO

extension SocketIOClient {
    /// A lifecycle event of a socket (a `SocketClientEvent` with its items), typed.
    ///
    /// ```swift
    /// for try await event in socket.on(clientEvent: .reconnectAttempt) {
    ///     if case .reconnectAttempt(attempt: .remaining(let left)) = event { print(left) }
    /// }
    /// ```
    public enum ClientEventPayload: Sendable, Hashable {
        /// `.connect` without a payload (items: `[namespace]`).
        case connect
        /// `.connect` with the CONNECT packet's payload (items: `[namespace, payload]`).
        case connectWithPayload(payload: SocketIOClient.Payload)
        /// `.disconnect` (items: `[reason]`).
        case disconnect(reason: SocketIOClient.DisconnectReason)
        /// `.error`, mapped as ``SocketIOClient/Error`` describes; "Tried emitting when not
        /// connected" is ``SocketIOClient/Error/notConnected(event:)`` with event `"error"`.
        case error(SocketIOClient.Error)
        /// `.ping`: the engine received a ping.
        case ping
        /// `.pong`: the engine answered with a pong.
        case pong
        /// `.reconnect` (items: `[reason]`): the manager starts reconnecting.
        case reconnect(reason: SocketIOClient.DisconnectReason)
        /// `.reconnectAttempt` (items: `[remainingAttempts]`).
        case reconnectAttempt(attempt: SocketIOClient.ReconnectAttempt)
        /// `.statusChange` (items: `[status, status.rawValue]`).
        case statusChange(SocketIOStatus)
        /// `.websocketUpgrade` (items: `[headers]`): the transport upgraded to WebSocket.
        case websocketUpgrade(headers: [String: String])
    }
}

extension SocketIOClient.ClientEventPayload {
    /// Types the items socket.io-client-swift delivers with `event`.
    ///
    /// - Throws: ``SocketIOClient/Error/invalidSocketData(event:message:)`` when the items do not
    ///   have the shape socket.io-client-swift gives that event.
    public init(clientEvent event: SocketClientEvent, items: [Any]) throws(SocketIOClient.Error) {
        switch event {
        case .connect:
            guard (1...2).contains(items.count), items[0] is String else {
                throw Self.invalid(event, items, expected: "[namespace] or [namespace, payload]")
            }
            self =
                items.count == 1
                ? .connect
                : .connectWithPayload(payload: try SocketIOClient.Payload(socketValue: items[1]))
        case .disconnect:
            self = .disconnect(
                reason: SocketIOClient.DisconnectReason(
                    rawReason: try Self.optionalString(items, event, expected: "[reason]")))
        case .error:
            // "Tried emitting when not connected" names the client event, as the seed package.
            self = .error(
                SocketIOClient.Error(
                    clientErrorItems: items, event: nil,
                    notConnectedEvent: SocketClientEvent.error.rawValue))
        case .ping:
            self = .ping
        case .pong:
            self = .pong
        case .reconnect:
            self = .reconnect(
                reason: SocketIOClient.DisconnectReason(
                    rawReason: try Self.optionalString(items, event, expected: "[reason]")))
        case .reconnectAttempt:
            guard items.count == 1, case .int(let remaining) = try SocketIOClient.Payload(socketValue: items[0]) else {
                throw Self.invalid(event, items, expected: "[remainingAttempts]")
            }
            self = .reconnectAttempt(attempt: SocketIOClient.ReconnectAttempt(rawRemainingAttempts: remaining))
        case .statusChange:
            guard let status = Self.status(items) else {
                throw Self.invalid(event, items, expected: "[SocketIOStatus, rawValue]")
            }
            self = .statusChange(status)
        case .websocketUpgrade:
            guard items.count == 1, case .object(let members) = try SocketIOClient.Payload(socketValue: items[0]) else {
                throw Self.invalid(event, items, expected: "[[String: String]]")
            }
            var headers: [String: String] = [:]
            for (name, value) in members {
                guard case .string(let text) = value else {
                    throw Self.invalid(event, items, expected: "[[String: String]]")
                }
                headers[name] = text
            }
            self = .websocketUpgrade(headers: headers)
        @unknown default:
            throw Self.invalid(event, items, expected: "a known client event")
        }
    }

    /// The status carried by a `.statusChange` event's items.
    static func status(_ items: [Any]) -> SocketIOStatus? {
        guard let first = items.first else { return nil }
        if let status = first as? SocketIOStatus { return status }
        if case .int(let raw)? = try? SocketIOClient.Payload(socketValue: first) {
            return SocketIOStatus(rawValue: raw)
        }
        return nil
    }

    private static func optionalString(
        _ items: [Any], _ event: SocketClientEvent,
        expected: String
    ) throws(SocketIOClient.Error) -> String? {
        guard items.count <= 1 else { throw Self.invalid(event, items, expected: expected) }
        guard let first = items.first else { return nil }
        guard let text = first as? String else { throw Self.invalid(event, items, expected: expected) }
        return text
    }

    private static func invalid(_ event: SocketClientEvent, _ items: [Any], expected: String) -> SocketIOClient.Error {
        .invalidSocketData(
            event: event.rawValue,
            message: "items of '\(event.rawValue)' should be \(expected), got \(items.count) item(s)")
    }
}
