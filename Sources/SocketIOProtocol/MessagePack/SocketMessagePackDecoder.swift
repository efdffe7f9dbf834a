import EngineIOProtocol

/// Decodes one Engine.IO binary message in the socket.io-msgpack-parser format into a
/// ``SocketPacket``.
///
/// socket.io-msgpack-parser 3.x (`index.js`, the parser a Socket.IO server is given with
/// `parser: require("socket.io-msgpack-parser")`; python-socketio `serializer='msgpack'`,
/// `msgpack_packet.py`): each packet is one MessagePack map `{type, nsp, data, id}` sent as
/// one binary Engine.IO message (engine.io-protocol v4, "message" packet with binary data);
/// binary values travel inside `data` as bin, with no attachments or placeholders. The value
/// is read by ``MessagePackDecoder`` (nesting limit ``maximumDepth`` + 1 for the packet map,
/// so a payload may nest as deep as on the JSON path), then checked as the reference's
/// `checkPacket` does:
///
/// - `type` is an integer 0-4 (CONNECT, DISCONNECT, EVENT, ACK, CONNECT_ERROR). The format
///   has no BINARY_EVENT / BINARY_ACK: 5 and 6 are refused, as the reference refuses them
///   ("invalid packet type"), with ``SocketProtocolError/unknownPacketType(_:)``. A float 64
///   holding an integer counts as that integer (JavaScript has one number type).
/// - `nsp` is a string.
/// - `data`, when present, has the shape ``SocketPacketDecoder`` requires of the type
///   (CONNECT an object, DISCONNECT none, CONNECT_ERROR an object or a string, EVENT a
///   non-empty array led by a name, ACK an array); the msgpack parser itself accepts any array
///   for EVENT, but the JavaScript client delivers nothing for an EVENT without a name either.
///   A `data` of nil counts as absent: python-socketio writes `data: None` in every packet
///   without a payload (its DISCONNECT and CONNECT), and notepack.io's `undefined` is absent.
/// - `id`, when present, is an integer 0...``SocketPacketDecoder/maximumAckID``.
///
/// Other keys are ignored (socket.io-client sends its emit `options` in the map); a repeated
/// key counts by its last value, as in a JavaScript object or a Python dict.
///
/// ```swift
/// let packet = try SocketMessagePackDecoder().decode(bytes)  // bytes of one binary message
/// ```
package struct SocketMessagePackDecoder: Sendable {
    /// The nesting limit for payloads, counted as on the JSON path (a top-level array is 1).
    package var maximumDepth: Int
    /// The largest binary message accepted, in bytes.
    package var maximumPacketSize: Int
    /// `true`: an EVENT must start with a string (socket.io-client-swift's rule); `false`: a
    /// number is accepted too, as socket.io-parser does. See ``SocketPacketDecoder``.
    package var requiresStringEventName: Bool

    /// A decoder with the given limits (defaults: depth 128 as ``SocketPacketDecoder``, 16 MiB
    /// as the default WebSocket message limit).
    package init(maximumDepth: Int = 128, maximumPacketSize: Int = 16 << 20, requiresStringEventName: Bool = false) {
        self.maximumDepth = maximumDepth
        self.maximumPacketSize = maximumPacketSize
        self.requiresStringEventName = requiresStringEventName
    }

    /// Decodes the packet of one binary message.
    ///
    /// - Throws: ``SocketProtocolError``: ``SocketProtocolError/invalidMessagePack(_:)`` for bytes
    ///   that are not one MessagePack value within the limits, ``SocketProtocolError/packetNotAMap``,
    ///   ``SocketProtocolError/invalidPacketField(_:)``, ``SocketProtocolError/unknownPacketType(_:)``,
    ///   ``SocketProtocolError/invalidAckID``, ``SocketProtocolError/invalidPayload(_:)``.
    package func decode(_ bytes: [UInt8]) throws(SocketProtocolError) -> SocketPacket {
        let value: JSONValue
        do {
            value = try self.messagePackDecoder.decode(bytes)
        } catch {
            throw .invalidMessagePack(error)
        }
        return try self.packet(from: value)
    }

    /// Decodes the packet of one binary message.
    ///
    /// - Throws: ``SocketProtocolError``, as ``decode(_:)-([UInt8])``.
    package func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(SocketProtocolError) -> SocketPacket {
        let value: JSONValue
        do {
            value = try self.messagePackDecoder.decode(bytes)
        } catch {
            throw .invalidMessagePack(error)
        }
        return try self.packet(from: value)
    }

    private var messagePackDecoder: MessagePackDecoder {
        let (depth, overflow) = self.maximumDepth.addingReportingOverflow(1)
        return MessagePackDecoder(maximumDepth: overflow ? .max : depth, maximumSize: self.maximumPacketSize)
    }

    /// The packet of a decoded packet map, checked as socket.io-msgpack-parser's `checkPacket`.
    private func packet(from value: JSONValue) throws(SocketProtocolError) -> SocketPacket {
        guard case .object(let map) = value else {
            throw .packetNotAMap
        }
        var typeValue: JSONValue?
        var namespaceValue: JSONValue?
        var dataValue: JSONValue?
        var idValue: JSONValue?
        for (key, member) in map {
            switch key {
            case "type": typeValue = member
            case "nsp": namespaceValue = member
            case "data": dataValue = member
            case "id": idValue = member
            default: break
            }
        }

        guard let typeNumber = typeValue?.intValue else {
            throw .invalidPacketField("type")
        }
        guard (0...4).contains(typeNumber), let type = SocketPacketType(rawValue: UInt8(typeNumber)) else {
            if (0...255).contains(typeNumber) {
                throw .unknownPacketType(UInt8(typeNumber))
            }
            throw .invalidPacketField("type")
        }
        guard case .string(let namespace)? = namespaceValue else {
            throw .invalidPacketField("nsp")
        }
        let data: JSONValue? = dataValue == .null ? nil : dataValue
        guard SocketPacketDecoder.isPayloadValid(data, for: type, stringEventName: self.requiresStringEventName) else {
            throw .invalidPayload(type)
        }
        var ackID: Int?
        if let idValue {
            guard let id = idValue.intValue, (0...SocketPacketDecoder.maximumAckID).contains(id) else {
                throw .invalidAckID
            }
            ackID = id
        }
        return SocketPacket(type: type, namespace: namespace, ackID: ackID, data: data)
    }
}
