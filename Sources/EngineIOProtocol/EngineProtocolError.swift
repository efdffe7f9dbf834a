/// A violation of the Engine.IO v4 wire format or handshake found while decoding.
///
/// Thrown by the packet and payload decoders and the handshake parser (engine.io-protocol v4,
/// "Packet encoding" and "Handshake"); the client state machine turns it into a close reason.
package enum EngineProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A packet with no bytes at all (no type digit).
    case emptyPacket
    /// A packet whose first byte is not a type digit `0`-`6`.
    case unknownPacketType(UInt8)
    /// A `b`-prefixed polling record whose base64 text is malformed.
    case invalidBase64
    /// A text packet that is not well-formed UTF-8.
    case invalidUTF8
    /// A polling payload (HTTP body) longer than the decoder's limit, in bytes.
    case payloadTooLarge(limit: Int)
    /// An `open` packet whose JSON is malformed or misses a mandatory field.
    case invalidHandshake(String)
    /// An Engine.IO v3 payload whose `<length>:` framing is malformed or does not match its content.
    case invalidLengthPrefix

    package var description: String {
        switch self {
        case .emptyPacket: return "empty Engine.IO packet"
        case .unknownPacketType(let byte): return "unknown Engine.IO packet type byte \(byte)"
        case .invalidBase64: return "invalid base64 in Engine.IO binary packet"
        case .invalidUTF8: return "Engine.IO text packet is not valid UTF-8"
        case .payloadTooLarge(let limit): return "Engine.IO payload exceeds \(limit) bytes"
        case .invalidHandshake(let reason): return "invalid Engine.IO handshake: \(reason)"
        case .invalidLengthPrefix: return "invalid Engine.IO v3 payload length prefix"
        }
    }
}
