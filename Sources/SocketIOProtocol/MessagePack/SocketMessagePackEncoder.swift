package import EngineIOProtocol

/// Encodes a ``SocketPacket`` in the socket.io-msgpack-parser format: one MessagePack map sent
/// as one binary Engine.IO message.
///
/// socket.io-msgpack-parser 3.x (`index.js`: `encode(packet)` is `[msgpack.encode(packet)]`)
/// and python-socketio's `msgpack_packet.py`. The map holds, in this order, `type`, `data`
/// (left out when the packet has none), `nsp` and `id` (when the packet has one): the order of
/// python-socketio's `Packet._to_dict`, so the bytes equal python's for every packet with a
/// payload. Without a payload python writes `data: None`, which the JavaScript reference
/// refuses for DISCONNECT ("invalid payload"); leaving the key out suits both.
///
/// Binary values stay in `data` as bin (``MessagePackEncoder``); there are no attachments, so
/// BINARY_EVENT and BINARY_ACK are written as EVENT (2) and ACK (3), as the JavaScript client
/// and python-socketio (`uses_binary_events = False`) do. An empty namespace is written `/`.
///
/// ```swift
/// let message = try SocketMessagePackEncoder.enginePacket(SocketPacket(type: .event, data: ["chat", .binary([1, 2])]))
/// // EnginePacket.binaryMessage([0x83, 0xa4, 0x74, 0x79, 0x70, 0x65, 0x02, …])
/// ```
package enum SocketMessagePackEncoder {
    /// The MessagePack bytes of `packet`: the body of one binary Engine.IO message.
    ///
    /// - Throws: ``MessagePackEncodingError`` when a string, binary, array or object in the
    ///   payload holds 2^32 or more bytes or elements.
    package static func encode(_ packet: SocketPacket) throws(MessagePackEncodingError) -> [UInt8] {
        let type: SocketPacketType
        switch packet.type {
        case .binaryEvent: type = .event
        case .binaryAck: type = .ack
        default: type = packet.type
        }
        var map = JSONObject()
        map.reserveCapacity(4)
        map.append(key: "type", value: .int(Int(type.rawValue)))
        if let data = packet.data {
            map.append(key: "data", value: data)
        }
        map.append(key: "nsp", value: .string(packet.namespace.isEmpty ? "/" : packet.namespace))
        if let ackID = packet.ackID {
            map.append(key: "id", value: .int(ackID))
        }
        return try MessagePackEncoder.encode(.object(map))
    }

    /// The binary Engine.IO message that carries `packet`.
    ///
    /// - Throws: ``MessagePackEncodingError``, as ``encode(_:)``.
    package static func enginePacket(_ packet: SocketPacket) throws(MessagePackEncodingError) -> EnginePacket {
        .binaryMessage(try Self.encode(packet))
    }
}
