package import EngineIOProtocol

/// A malformed Socket.IO v5 packet or attachment sequence.
///
/// Thrown by ``SocketPacketDecoder`` and ``BinaryPacketAssembler`` (socket.io-protocol v5,
/// "Packet encoding" / "Format"), and by ``SocketMessagePackDecoder`` for the
/// socket.io-msgpack-parser format (the last three cases are that format's own). A receiver
/// that gets one SHOULD close the connection, as the spec requires for invalid payloads.
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
    /// The attachments would take more than `limit` bytes: those the waiting packets hold,
    /// each counted once for every placeholder that refers to it (a packet is delivered with
    /// one copy per placeholder).
    case attachmentsTooLarge(limit: Int)
    /// A text packet arrived while a binary packet still waited for attachments
    /// (socket.io-parser: "got plaintext data when reconstructing a packet").
    case textWhileAwaitingAttachments
    /// socket.io-msgpack-parser format: the binary message is not one valid MessagePack value
    /// within the decoder's limits.
    case invalidMessagePack(MessagePackDecodingError)
    /// socket.io-msgpack-parser format: the MessagePack value is not a map (the packet object
    /// `{type, nsp, data, id}`).
    case packetNotAMap
    /// socket.io-msgpack-parser format: the packet map's `type` is missing or not an integer,
    /// or its `nsp` is missing or not a string (the field's name is given).
    case invalidPacketField(String)

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
        case .attachmentsTooLarge(let limit): return "Socket.IO binary attachments over \(limit) bytes"
        case .textWhileAwaitingAttachments: return "Socket.IO text packet while binary attachments were expected"
        case .invalidMessagePack(let error): return "invalid Socket.IO MessagePack packet: \(error)"
        case .packetNotAMap: return "Socket.IO MessagePack packet is not a map"
        case .invalidPacketField(let field): return "Socket.IO MessagePack packet has a missing or invalid '\(field)'"
        }
    }
}
