import RealtimeEncoding

/// One Engine.IO v4 packet: a type and its optional data.
///
/// engine.io-protocol v4, "Protocol" and "Packet encoding": a packet is a type digit followed by
/// text data, or, for `message` packets only, raw binary data (a WebSocket binary frame, or a
/// `b`-prefixed base64 record in a polling payload). The cases model exactly what the wire can
/// carry, so a binary packet can never claim another type.
///
/// ```swift
/// EnginePacket.message("hello").webSocketFrame()   // .text("4hello")
/// EnginePacket.ping("probe").webSocketFrame()       // .text("2probe")
/// EnginePacket.binaryMessage([1, 2]).webSocketFrame() // .binary([1, 2])
/// ```
package enum EnginePacket: Sendable, Hashable {
    /// `0`: the handshake, carrying the JSON text of ``EngineHandshake``.
    case open(String)
    /// `1`: the transport can be closed.
    case close
    /// `2`: heartbeat request (from the server in v4), or `2probe` during an upgrade.
    case ping(String)
    /// `3`: heartbeat answer, or `3probe` during an upgrade.
    case pong(String)
    /// `4`: a text message for the layer above (Socket.IO).
    case message(String)
    /// `4` with binary data: a binary message (Socket.IO attachments).
    case binaryMessage([UInt8])
    /// `5`: completes a transport upgrade.
    case upgrade
    /// `6`: no operation (used to end a pending poll during an upgrade).
    case noop

    /// The packet's type; ``binaryMessage(_:)`` is a ``EnginePacketType/message``.
    package var type: EnginePacketType {
        switch self {
        case .open: return .open
        case .close: return .close
        case .ping: return .ping
        case .pong: return .pong
        case .message, .binaryMessage: return .message
        case .upgrade: return .upgrade
        case .noop: return .noop
        }
    }

    /// The text after the type digit (empty for packets without data); `nil` for binary.
    package var textData: String? {
        switch self {
        case .open(let text), .ping(let text), .pong(let text), .message(let text):
            return text
        case .close, .upgrade, .noop:
            return ""
        case .binaryMessage:
            return nil
        }
    }

    /// Builds a text packet from its type and the text after the type digit.
    ///
    /// Data on `close`, `upgrade` and `noop` carries no meaning and is dropped.
    package init(type: EnginePacketType, text: String) {
        switch type {
        case .open: self = .open(text)
        case .close: self = .close
        case .ping: self = .ping(text)
        case .pong: self = .pong(text)
        case .message: self = .message(text)
        case .upgrade: self = .upgrade
        case .noop: self = .noop
        }
    }
}

// MARK: - Text form

extension EnginePacket {
    /// Appends the text form `<type digit>[<data>]` (UTF-8); for a binary message, appends the
    /// polling form `b<base64>` (engine.io-protocol v4, "HTTP long-polling" packet encoding).
    package func appendPollingRecord(to buffer: inout [UInt8]) {
        switch self {
        case .binaryMessage(let bytes):
            buffer.append(UInt8(ascii: "b"))
            Base64.encode(bytes, into: &buffer)
        default:
            buffer.append(self.type.asciiDigit)
            if var text = self.textData, !text.isEmpty {
                text.withUTF8 { buffer.append(contentsOf: $0) }
            }
        }
    }

    /// Decodes a text packet `<type digit>[<data>]` from UTF-8 bytes.
    ///
    /// - Throws: ``EngineProtocolError/emptyPacket``, ``EngineProtocolError/unknownPacketType(_:)``,
    ///   ``EngineProtocolError/invalidUTF8``.
    package init(textRecord bytes: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError) {
        guard let first = bytes.first else {
            throw .emptyPacket
        }
        guard let type = EnginePacketType(asciiDigit: first) else {
            throw .unknownPacketType(first)
        }
        let data = UnsafeBufferPointer(rebasing: bytes[1...])
        guard UTF8Validator.firstInvalidOffset(in: data) == nil else {
            throw .invalidUTF8
        }
        self.init(type: type, text: String(decoding: data, as: UTF8.self))
    }

    /// Decodes one record of a polling payload: a text packet, or `b<base64>` binary message.
    ///
    /// - Throws: ``EngineProtocolError`` for an empty record, an unknown type, bad UTF-8 or bad base64.
    package init(pollingRecord bytes: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError) {
        if bytes.first == UInt8(ascii: "b") {
            guard let decoded = Base64.decode(UnsafeBufferPointer(rebasing: bytes[1...])) else {
                throw .invalidBase64
            }
            self = .binaryMessage(decoded)
        } else {
            try self.init(textRecord: bytes)
        }
    }
}
