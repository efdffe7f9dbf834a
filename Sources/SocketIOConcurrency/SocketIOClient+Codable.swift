public import Foundation
public import SocketIO

// MARK: - Payload <-> Codable

extension SocketIOClient.Payload {
    /// Encodes `value` with ``SocketIO/SocketIOClient/PayloadEncoder``: `Data` fields stay
    /// binary (they travel as attachments), everything else as `JSONEncoder` would shape it.
    ///
    /// ```swift
    /// struct Move: Codable { var x: Int; var y: Int }
    /// await socket.emit("move", try SocketIOClient.Payload(encoding: Move(x: 1, y: 2)))
    /// ```
    ///
    /// - Throws: ``SocketIO/SocketIOClient/Error/invalidSocketData(event:message:)`` saying
    ///   what could not be encoded and where.
    public init(encoding value: some Encodable) throws(SocketIOClient.Error) {
        self = try Self.encode(value, event: nil)
    }

    /// Decodes a `Value` from this payload with ``SocketIO/SocketIOClient/PayloadDecoder``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - event: The event the payload came with, named in the error.
    /// - Throws: ``SocketIO/SocketIOClient/Error/invalidSocketData(event:message:)`` naming
    ///   `event`, the type and the coding path of what did not fit.
    public func decode<Value: Decodable>(_ type: Value.Type, event: String? = nil) throws(SocketIOClient.Error) -> Value {
        do {
            return try SocketIOClient.PayloadDecoder().decode(type, from: self)
        } catch let error as DecodingError {
            throw .invalidSocketData(event: event, message: Self.describe(error, decoding: type))
        } catch {
            throw .invalidSocketData(event: event, message: "cannot decode \(type): \(error)")
        }
    }

    static func encode(_ value: some Encodable, event: String?) throws(SocketIOClient.Error) -> Self {
        do {
            return try SocketIOClient.PayloadEncoder().encode(value)
        } catch let error as EncodingError {
            guard case .invalidValue(_, let context) = error else {
                throw .invalidSocketData(event: event, message: "cannot encode \(type(of: value)): \(error)")
            }
            throw .invalidSocketData(
                event: event,
                message: "cannot encode \(type(of: value)) at \(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw .invalidSocketData(event: event, message: "cannot encode \(type(of: value)): \(error)")
        }
    }

    /// One line for a decoding error: the type, where, and what was wrong.
    static func describe(_ error: DecodingError, decoding type: Any.Type) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            let path = Self.path(context.codingPath + [key])
            return "cannot decode \(type): no value for \(path)"
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            return "cannot decode \(type) at \(Self.path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "cannot decode \(type): \(error)"
        }
    }

    /// A coding path as `a.b[2].c` (`the payload` when empty).
    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the payload" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key is PayloadIndexKey {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}

// MARK: - Emits and streams of Codable values

extension SocketIOClient {
    /// Emits `event` with each value encoded as one argument (see ``Payload/init(encoding:)``):
    /// `Data` fields travel as binary attachments, not base64.
    ///
    /// ```swift
    /// struct ChatMessage: Codable { var room: String; var text: String }
    /// try await socket.emit("chat", encoding: ChatMessage(room: "lobby", text: "hi"))
    /// ```
    ///
    /// Once encoded it is ``emit(_:with:)``: the same delivery and the same
    /// "not connected" reporting.
    ///
    /// At least one value is required, so that `await socket.emit("ping")` (no arguments) is
    /// ``emit(_:_:)`` and not ambiguous with this method.
    ///
    /// - Throws: ``Error/invalidSocketData(event:message:)`` naming `event` when a value cannot
    ///   be encoded (nothing is sent); ``Error/cancelled`` when the task is already cancelled.
    public func emit(_ event: String, encoding value: any Encodable, _ more: any Encodable...) async throws(Error) {
        guard !Task.isCancelled else { throw .cancelled }
        let payloads = try Self.encode([value] + more, event: event)
        await self.emit(event, with: payloads)
    }

    /// Emits `event` with each value encoded as one argument, and decodes the acknowledgement
    /// as a `Response`.
    ///
    /// ```swift
    /// struct Joined: Decodable { var members: Int }
    /// let joined = try await socket.emitWithAck("join", encoding: JoinRequest(room: "lobby"), as: Joined.self)
    /// ```
    ///
    /// An ack with one item decodes that item; with zero or several, the array of them (as
    /// ``emitWithAck(_:_:timeout:)`` returns it). At least one value is required, so that
    /// `try await socket.emitWithAck("ping")` (no arguments) is ``emitWithAck(_:_:timeout:)``.
    ///
    /// - Throws: what ``emitWithAck(_:with:timeout:)`` throws, and
    ///   ``Error/invalidSocketData(event:message:)`` naming `event` when a value cannot be
    ///   encoded (nothing is sent) or the ack does not decode as `Response`.
    public func emitWithAck<Response: Decodable>(
        _ event: String,
        encoding value: any Encodable,
        _ more: any Encodable...,
        timeout: TimeInterval = 5,
        as responseType: Response.Type = Response.self
    ) async throws(Error) -> Response {
        let payloads = try Self.encode([value] + more, event: event)
        let ack = try await self.emitWithAck(event, with: payloads, timeout: timeout)
        return try ack.decode(responseType, event: event)
    }

    /// Emits `event` with `SocketData` items, asking for an acknowledgement decoded as a `Response`.
    ///
    /// ```swift
    /// let total: Int = try await socket.emitWithAck("add", 1, 2, as: Int.self)
    /// ```
    ///
    /// - Throws: what ``emitWithAck(_:with:timeout:)`` throws, and
    ///   ``Error/invalidSocketData(event:message:)`` naming `event` when the ack does not
    ///   decode as `Response`.
    public func emitWithAck<Response: Decodable>(
        _ event: String,
        _ items: SocketData...,
        timeout: TimeInterval = 5,
        as responseType: Response.Type
    ) async throws(Error) -> Response {
        let ack = try await self.emitWithAck(event, with: items, timeout: timeout)
        return try ack.decode(responseType, event: event)
    }

    /// Subscribes to `event` and decodes each payload as a `Value`.
    ///
    /// ```swift
    /// struct ChatMessage: Codable, Sendable { var room: String; var text: String }
    /// for try await message in socket.on("chat", as: ChatMessage.self) {
    ///     print(message.room, message.text)
    /// }
    /// ```
    ///
    /// The stream of ``on(_:bufferingPolicy:)`` (same registration, ending and buffering), with
    /// each event's payload (one argument: that argument; several: their array) decoded.
    ///
    /// Only the event's own arguments are decoded. A server with connection state recovery on
    /// (socket.io 4.6+, `connectionStateRecovery`) appends an offset string to every event it
    /// sends without asking for an ack; ``on(_:bufferingPolicy:)`` and `[Any]` handlers see it
    /// as the last argument (as socket.io-client's handlers do), this stream never decodes it.
    /// An ack decoded with `emitWithAck(_:_:timeout:as:)` carries no offset.
    ///
    /// - Parameters:
    ///   - event: The event name.
    ///   - type: The type each event decodes as.
    ///   - bufferingPolicy: What to keep while the consumer is slower than the server; the
    ///     default keeps every event, holding the connection's reading back while 256 wait
    ///     (see ``on(_:bufferingPolicy:)``).
    /// - Returns: A unicast stream; a payload that does not decode ends it with
    ///   ``Error/invalidSocketData(event:message:)`` naming `event`, the type and the coding
    ///   path.
    public func on<Value: Decodable & Sendable>(
        _ event: String,
        as type: Value.Type,
        bufferingPolicy: AsyncThrowingStream<Value, Error>.BufferingPolicy = .unbounded
    ) -> AsyncThrowingStream<Value, Error> {
        self.subscribe(to: event, bufferingPolicy: bufferingPolicy, ownArgumentsOnly: true) { payload throws(Error) in
            try payload.decode(type, event: event)
        }
    }

    private static func encode(_ values: [any Encodable], event: String) throws(Error) -> [SocketData] {
        var payloads: [SocketData] = []
        payloads.reserveCapacity(values.count)
        for value in values {
            payloads.append(try Payload.encode(value, event: event))
        }
        return payloads
    }
}
