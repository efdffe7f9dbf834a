package import EngineIOProtocol

/// The encoded form of one Socket.IO packet: the text of the Engine.IO `message` and the
/// binary attachments to send after it, each as its own binary Engine.IO message.
package struct SocketEncodedPacket: Sendable, Hashable {
    /// The packet text, without the Engine.IO `4` prefix.
    package var text: String
    /// Binary attachments in placeholder order.
    package var attachments: [[UInt8]]

    /// The Engine.IO packets to send, in order: the text message, then each attachment.
    package var enginePackets: [EnginePacket] {
        // One array: a concatenation of two would allocate three.
        var packets: [EnginePacket] = []
        packets.reserveCapacity(1 + self.attachments.count)
        packets.append(.message(self.text))
        for attachment in self.attachments { packets.append(.binaryMessage(attachment)) }
        return packets
    }
}

/// Encodes ``SocketPacket`` values into the canonical text of socket.io-parser.
///
/// socket.io-protocol v5, "Packet encoding" / "Format":
/// `<packet type>[<# of binary attachments>-][<namespace>,][<acknowledgment id>][JSON payload]`,
/// with the namespace written only when it is not `/`. Binary values in the payload are replaced
/// by `{"_placeholder":true,"num":n}` in traversal order and returned as attachments; an EVENT
/// or ACK that carries binary becomes BINARY_EVENT / BINARY_ACK. Examples from the spec:
/// `0`, `0/admin,{"sid":"oSO0OpakMV_3jnilAAAA"}`, `2["foo"]`, `212["foo"]`, `3/admin,13["bar"]`,
/// `51-["baz",{"_placeholder":true,"num":0}]`, `1/admin,`.
package enum SocketPacketEncoder {
    /// Encodes `packet`.
    package static func encode(_ packet: SocketPacket) -> SocketEncodedPacket {
        var attachments: [[UInt8]] = []
        if let data = packet.data, data.containsBinary {
            Self.collectBinary(data, into: &attachments)
        }
        var type = packet.type
        if !attachments.isEmpty {
            if type == .event { type = .binaryEvent }
            if type == .ack { type = .binaryAck }
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(128)  // one allocation for typical event packets
        buffer.append(UInt8(ascii: "0") + type.rawValue)
        if type.isBinary {
            JSONNumberFormatter.append(attachments.count, to: &buffer)
            buffer.append(UInt8(ascii: "-"))
        }
        if packet.namespace != "/" && !packet.namespace.isEmpty {
            buffer.append(contentsOf: packet.namespace.utf8)
            buffer.append(UInt8(ascii: ","))
        }
        if let ackID = packet.ackID {
            JSONNumberFormatter.append(ackID, to: &buffer)
        }
        if let data = packet.data {
            data.serialize(into: &buffer)
        }
        return SocketEncodedPacket(text: String(decoding: buffer, as: UTF8.self), attachments: attachments)
    }

    /// Appends the binary values of `value` in the serializer's traversal order.
    private static func collectBinary(_ value: JSONValue, into attachments: inout [[UInt8]]) {
        switch value {
        case .binary(let bytes):
            attachments.append(bytes)
        case .array(let elements):
            for element in elements { Self.collectBinary(element, into: &attachments) }
        case .object(let object):
            for (_, element) in object { Self.collectBinary(element, into: &attachments) }
        case .null, .bool, .int, .double, .string:
            break
        }
    }
}
