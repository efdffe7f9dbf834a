/// The content of one WebSocket message carrying one Engine.IO packet.
///
/// engine.io-protocol v4, "Packet encoding" / "WebSocket": each packet travels in its own
/// WebSocket frame; text packets as a text frame `<type digit>[<data>]`, binary messages as a
/// binary frame holding the raw bytes with no type prefix. The I/O layer maps this one-to-one
/// onto its WebSocket message type.
package enum EngineWebSocketFrame: Sendable, Hashable {
    /// A text frame.
    case text(String)
    /// A binary frame.
    case binary([UInt8])
}

extension EnginePacket {
    /// The WebSocket frame for this packet (engine.io-protocol v4, "Packet encoding" / "WebSocket").
    package func webSocketFrame() -> EngineWebSocketFrame {
        switch self {
        case .binaryMessage(let bytes):
            return .binary(bytes)
        case .message(let text):
            return .text("4" + text)
        case .open(let text):
            return .text("0" + text)
        case .ping(let text):
            return .text("2" + text)
        case .pong(let text):
            return .text("3" + text)
        case .close:
            return .text("1")
        case .upgrade:
            return .text("5")
        case .noop:
            return .text("6")
        }
    }

    /// Decodes a packet from a WebSocket frame.
    ///
    /// A binary frame is always a binary message; a text frame must start with a type digit.
    ///
    /// - Throws: ``EngineProtocolError/emptyPacket`` or ``EngineProtocolError/unknownPacketType(_:)``
    ///   for a text frame that is not a packet.
    package init(webSocketFrame frame: EngineWebSocketFrame) throws(EngineProtocolError) {
        switch frame {
        case .binary(let bytes):
            self = .binaryMessage(bytes)
        case .text(let text):
            try self.init(webSocketText: text)
        }
    }

    /// Decodes a packet from the text of a WebSocket text frame.
    ///
    /// - Throws: ``EngineProtocolError/emptyPacket`` or ``EngineProtocolError/unknownPacketType(_:)``.
    package init(webSocketText text: String) throws(EngineProtocolError) {
        let utf8 = text.utf8
        guard let first = utf8.first else {
            throw .emptyPacket
        }
        guard let type = EnginePacketType(asciiDigit: first) else {
            throw .unknownPacketType(first)
        }
        // The type digit is ASCII, so dropping one UTF-8 unit stays on a character boundary.
        let rest = String(Substring(utf8.dropFirst()))
        self.init(type: type, text: rest)
    }
}

// MARK: - Protocol revisions

extension EnginePacket {
    /// The WebSocket frame for this packet in the given revision: as ``webSocketFrame()`` for
    /// v4; in v3 a binary message's frame starts with the type byte `4` (engine.io-protocol v3,
    /// "Encoding" / "Packet": "the packet type id is sent in the first byte of the binary contents").
    package func webSocketFrame(version: EngineProtocolVersion) -> EngineWebSocketFrame {
        if version == .v3, case .binaryMessage(let bytes) = self {
            return .binary([EnginePacketType.message.rawValue] + bytes)
        }
        return self.webSocketFrame()
    }

    /// Decodes a WebSocket frame in the given revision.
    ///
    /// - Throws: ``EngineProtocolError`` for an empty frame or an unknown type; in v3 a binary
    ///   frame must start with the message type byte `4`.
    package init(webSocketFrame frame: EngineWebSocketFrame, version: EngineProtocolVersion) throws(EngineProtocolError) {
        if version == .v3, case .binary(let bytes) = frame {
            guard let first = bytes.first else { throw .emptyPacket }
            guard first == EnginePacketType.message.rawValue else { throw .unknownPacketType(first) }
            self = .binaryMessage(Array(bytes.dropFirst()))
            return
        }
        try self.init(webSocketFrame: frame)
    }
}
