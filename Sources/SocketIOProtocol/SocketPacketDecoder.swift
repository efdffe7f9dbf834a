import EngineIOProtocol

/// Decodes the text of an Engine.IO `message` into a ``SocketPacket``.
///
/// socket.io-protocol v5, "Packet encoding" / "Format":
/// `<packet type>[<# of binary attachments>-][<namespace>,][<acknowledgment id>][JSON payload]`.
/// The payload is checked against the type the way socket.io-parser does: CONNECT carries an
/// object or nothing, DISCONNECT nothing, CONNECT_ERROR an object or a string, EVENT a
/// non-empty array starting with a string (or a number), ACK an array.
///
/// Every malformed input throws a ``SocketProtocolError``; the decoder never traps, and the
/// announced attachment count and ack id are bounded before anything is allocated.
///
/// ```swift
/// let packet = try SocketPacketDecoder().decode(#"2/admin,13["bar"]"#)
/// ```
package struct SocketPacketDecoder: Sendable {
    /// The most attachments one binary packet may announce.
    package var maximumAttachments: Int
    /// The JSON nesting limit for payloads.
    package var maximumDepth: Int
    /// The protocol revision. With ``SocketProtocolRevision/v4`` (Socket.IO 2.x), type `4` is
    /// ERROR, and its payload is whatever JSON the server sends, or nothing (`4"message"`,
    /// `4{...}`, `4/nsp,"message"`, `4`, `4[1,2]`): it carries no ack id, as
    /// socket.io-client-swift's parser reads it. ``SocketProtocolRevision/v5`` keeps the
    /// CONNECT_ERROR rule (an object or a string).
    package var revision: SocketProtocolRevision
    /// `true`: an EVENT / BINARY_EVENT must start with a string (socket.io-client-swift's
    /// rule: it has no numeric event names); `false`: a number is accepted too, as
    /// socket.io-parser does.
    package var requiresStringEventName: Bool

    /// A decoder with the given limits (defaults: 1,000 attachments, depth 128) and revision.
    package init(
        maximumAttachments: Int = 1_000, maximumDepth: Int = 128, revision: SocketProtocolRevision = .v5,
        requiresStringEventName: Bool = false
    ) {
        self.maximumAttachments = maximumAttachments
        self.maximumDepth = maximumDepth
        self.revision = revision
        self.requiresStringEventName = requiresStringEventName
    }

    /// The largest acknowledgement id accepted: 2^53 - 1, the largest integer a JavaScript
    /// peer can represent exactly.
    package static let maximumAckID = 9_007_199_254_740_991

    /// Decodes one packet.
    ///
    /// - Throws: ``SocketProtocolError``.
    package func decode(_ text: String) throws(SocketProtocolError) -> SocketPacket {
        try self.decode(Substring(text))
    }

    /// Decodes one packet from part of a string: an Engine.IO message after its type digit,
    /// without copying the packet out of it.
    ///
    /// - Throws: ``SocketProtocolError``.
    package func decode(_ text: Substring) throws(SocketProtocolError) -> SocketPacket {
        var text = text
        let result = text.withUTF8 { bytes -> Result<SocketPacket, SocketProtocolError> in
            do throws(SocketProtocolError) {
                return .success(try self.decode(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Decodes one packet from UTF-8 bytes that are known to be valid UTF-8.
    ///
    /// - Throws: ``SocketProtocolError``.
    package func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(SocketProtocolError) -> SocketPacket {
        guard let first = bytes.first else {
            throw .emptyPacket
        }
        guard first >= UInt8(ascii: "0"), let type = SocketPacketType(rawValue: first - UInt8(ascii: "0")) else {
            throw .unknownPacketType(first)
        }
        var index = 1
        let count = bytes.count

        // Attachments: digits then "-".
        var attachmentCount = 0
        if type.isBinary {
            let digitsStart = index
            while index < count, Self.isDigit(bytes[index]) {
                attachmentCount = attachmentCount * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                if attachmentCount > self.maximumAttachments {
                    throw .tooManyAttachments(limit: self.maximumAttachments)
                }
                index += 1
            }
            guard index > digitsStart, index < count, bytes[index] == UInt8(ascii: "-") else {
                throw .invalidAttachmentCount
            }
            index += 1
        }

        // Namespace: "/" ... up to "," or the end.
        var namespace = "/"
        if index < count, bytes[index] == UInt8(ascii: "/") {
            let start = index
            while index < count, bytes[index] != UInt8(ascii: ",") {
                index += 1
            }
            namespace = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if index < count {
                index += 1  // the comma
            }
        }

        // Ack id: digits (a v4 ERROR has none: its digits are JSON).
        let isVersionTwoError = type == .connectError && self.revision == .v4
        var ackID: Int?
        if !isVersionTwoError, index < count, Self.isDigit(bytes[index]) {
            var value = 0
            while index < count, Self.isDigit(bytes[index]) {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                guard value <= Self.maximumAckID else {
                    throw .invalidAckID
                }
                index += 1
            }
            ackID = value
        }

        // Payload.
        var data: JSONValue?
        if index < count {
            do {
                data = try JSONParser(maximumDepth: self.maximumDepth).parse(UnsafeBufferPointer(rebasing: bytes[index...]))
            } catch {
                throw .invalidJSON(error)
            }
        }
        guard isVersionTwoError || Self.isPayloadValid(data, for: type, stringEventName: self.requiresStringEventName) else {
            throw .invalidPayload(type)
        }
        return SocketPacket(type: type, namespace: namespace, ackID: ackID, data: data, attachmentCount: attachmentCount)
    }

    /// socket.io-parser's `isPayloadValid` rules (also applied by ``SocketMessagePackDecoder``).
    static func isPayloadValid(_ data: JSONValue?, for type: SocketPacketType, stringEventName: Bool) -> Bool {
        switch type {
        case .connect:
            guard let data else { return true }
            if case .object = data { return true }
            return false
        case .disconnect:
            return data == nil
        case .connectError:
            switch data {
            case .object?, .string?: return true
            default: return false
            }
        case .event, .binaryEvent:
            guard case .array(let elements)? = data, let first = elements.first else { return false }
            switch first {
            case .string: return true
            case .int, .double: return !stringEventName
            default: return false
            }
        case .ack, .binaryAck:
            if case .array? = data { return true }
            return false
        }
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
