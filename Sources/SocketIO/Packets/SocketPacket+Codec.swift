import EngineIOProtocol
import Foundation
import SocketIOProtocol

/// Bridges the public ``SocketPacket`` (upstream's shape, `[Any]` payloads) to the protocol
/// layer's codec (`SocketIOProtocol.SocketPacketEncoder` / `SocketPacketDecoder`, which
/// implement socket.io-protocol v5 "Packet encoding").
extension SocketPacket {
    /// The protocol layer's packet type for this packet's (upstream-shaped) type.
    var protocolType: SocketPacketType {
        switch self.type {
        case .connect: return .connect
        case .disconnect: return .disconnect
        case .event: return .event
        case .ack: return .ack
        case .error: return .connectError
        case .binaryEvent: return .binaryEvent
        case .binaryAck: return .binaryAck
        }
    }

    /// The upstream-shaped type for a protocol layer packet type.
    static func publicType(_ type: SocketPacketType) -> PacketType {
        switch type {
        case .connect: return .connect
        case .disconnect: return .disconnect
        case .event: return .event
        case .ack: return .ack
        case .connectError: return .error
        case .binaryEvent: return .binaryEvent
        case .binaryAck: return .binaryAck
        }
    }

    /// The packet's text (without the engine.io `4`) and its binary attachments.
    func encoded() -> SocketEncodedPacket {
        let payload: JSONValue?
        switch self.type {
        case .connect, .error:
            payload = self.data.first.map { SocketValueConversion.jsonValue(from: $0) }
        case .disconnect:
            payload = nil
        case .event, .ack, .binaryEvent, .binaryAck:
            payload = .array(self.data.map { SocketValueConversion.jsonValue(from: $0) })
        }
        let packet = SocketIOProtocol.SocketPacket(
            type: self.protocolType, namespace: self.nsp,
            ackID: self.id >= 0 ? self.id : nil, data: payload)
        return SocketPacketEncoder.encode(packet)
    }

    /// Builds the packet for an emit or an ack: `Data` anywhere in `items` becomes an attachment.
    static func packetFromEmit(_ items: [Any], id: Int, nsp: String, ack: Bool, checkForBinary: Bool = true) -> SocketPacket {
        var packet = SocketPacket(type: ack ? .ack : .event, data: items, id: id, nsp: nsp)
        let encoded = packet.encoded()
        if !encoded.attachments.isEmpty {
            packet = SocketPacket(
                type: ack ? .binaryAck : .binaryEvent, data: items, id: id, nsp: nsp,
                binary: encoded.attachments.map { Data($0) })
        }
        packet.cachedText = encoded.text
        return packet
    }

    /// Parses one socket.io packet from the text of an engine.io message.
    ///
    /// With `.two`, an ERROR packet takes any JSON payload or none, and its data is as
    /// upstream's parser makes it: a JSON array's elements, else `[value]`, `[]` when empty.
    ///
    /// - Throws: ``SocketParsableError``: `.invalidPacketType` for an unknown type,
    ///   `.invalidDataArray` for an event without a name, `.invalidPacket` otherwise.
    static func decode(_ message: String, version: SocketIOVersion = .three) throws(SocketParsableError) -> SocketPacket {
        let packet: SocketIOProtocol.SocketPacket
        do {
            packet = try SocketPacketDecoder(revision: version.protocolRevision).decode(message)
        } catch {
            switch error {
            case .unknownPacketType: throw .invalidPacketType
            default: throw .invalidPacket
            }
        }

        return SocketPacket(
            type: self.publicType(packet.type), data: try self.items(of: packet, version: version),
            id: packet.ackID ?? -1, nsp: packet.namespace, placeholders: packet.attachmentCount)
    }

    /// A decoded protocol packet in upstream's shape (`data` as upstream's parser makes it).
    ///
    /// - Parameter attachments: the binary attachments it already has (a waiting packet's).
    static func upstream(
        _ packet: SocketIOProtocol.SocketPacket, version: SocketIOVersion,
        attachments: [[UInt8]] = []
    ) throws(SocketParsableError) -> SocketPacket {
        SocketPacket(
            type: self.publicType(packet.type), data: try self.items(of: packet, version: version),
            id: packet.ackID ?? -1, nsp: packet.namespace, placeholders: packet.attachmentCount,
            binary: attachments.map { Data($0) })
    }

    /// Upstream's `data` of a packet: an event's or ack's array, the CONNECT / CONNECT_ERROR
    /// payload as one item (with `.two`, an ERROR's array elements), nothing for DISCONNECT.
    static func items(of packet: SocketIOProtocol.SocketPacket, version: SocketIOVersion) throws(SocketParsableError) -> [Any] {
        switch packet.type {
        case .event, .binaryEvent:
            guard packet.eventName != nil, case .array(let elements)? = packet.data else { throw .invalidDataArray }
            return SocketValueConversion.items(from: elements)
        case .ack, .binaryAck:
            guard case .array(let elements)? = packet.data else { throw .invalidDataArray }
            return SocketValueConversion.items(from: elements)
        case .connectError where version == .two:
            if case .array(let elements)? = packet.data {
                return SocketValueConversion.items(from: elements)
            }
            return packet.data.map { [SocketValueConversion.any(from: $0)] } ?? []
        case .connect, .connectError:
            return packet.data.map { [SocketValueConversion.any(from: $0)] } ?? []
        case .disconnect:
            return []
        }
    }
}
