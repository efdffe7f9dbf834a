package import EngineIOProtocol

/// A malformed Socket.IO v5 packet or attachment sequence.
///
/// Thrown by ``SocketPacketDecoder`` and ``BinaryPacketAssembler`` (socket.io-protocol v5,
/// "Packet encoding" / "Format"). A receiver that gets one SHOULD close the connection, as the
/// spec requires for invalid payloads.
package enum SocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Engine.IO message held no Socket.IO packet.
    case emptyPacket
    /// The first byte is not a packet type digit `0`-`6`.
    case unknownPacketType(UInt8)
    /// A binary packet's header lacks `<count>-`, or the count is not a number.
    case invalidAttachmentCount
    /// A binary packet announces more attachments than the decoder accepts.
    case tooManyAttachments(limit: Int)
    /// The acknowledgement id does not fit the accepted range.
    case invalidAckID
    /// The payload is not valid JSON.
    case invalidJSON(JSONParseError)
    /// The payload's shape does not match the packet type (e.g. an EVENT that is not a
    /// non-empty array whose first element is a string).
    case invalidPayload(SocketPacketType)
    /// A placeholder whose `num` is not an index of the announced attachments.
    case invalidPlaceholder
    /// A binary attachment arrived while no binary packet was waiting for one.
    case unexpectedAttachment
    /// A text packet arrived while a binary packet still waited for attachments
    /// (socket.io-parser: "got plaintext data when reconstructing a packet").
    case textWhileAwaitingAttachments

    package var description: String {
        switch self {
        case .emptyPacket: return "empty Socket.IO packet"
        case .unknownPacketType(let byte): return "unknown Socket.IO packet type byte \(byte)"
        case .invalidAttachmentCount: return "invalid Socket.IO attachment count"
        case .tooManyAttachments(let limit): return "Socket.IO packet announces more than \(limit) attachments"
        case .invalidAckID: return "invalid Socket.IO ack id"
        case .invalidJSON(let error): return "invalid Socket.IO payload JSON: \(error)"
        case .invalidPayload(let type): return "invalid payload for Socket.IO \(type) packet"
        case .invalidPlaceholder: return "invalid Socket.IO binary placeholder"
        case .unexpectedAttachment: return "unexpected Socket.IO binary attachment"
        case .textWhileAwaitingAttachments: return "Socket.IO text packet while binary attachments were expected"
        }
    }
}
