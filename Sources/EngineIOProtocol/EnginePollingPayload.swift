/// Encoding of HTTP long-polling bodies: packets joined by the record separator `0x1E`.
///
/// engine.io-protocol v4, "Packet encoding" / "HTTP long-polling":
/// `<packet type>[<data>]<\x1e><packet type>[<data>]…`, binary messages as `b<base64>`.
/// Example from the spec: `4hello\x1e2\x1e4world`, and `4hello\x1ebAQIDBA==`.
///
/// ```swift
/// let body = EnginePollingPayload.encode([.message("hello"), .ping(""), .message("world")])
/// // "4hello\u{1E}2\u{1E}4world" as UTF-8
/// ```
package enum EnginePollingPayload {
    /// The record separator between packets.
    package static let separator: UInt8 = 0x1E

    /// The body carrying `packets` in order.
    package static func encode(_ packets: some Sequence<EnginePacket>) -> [UInt8] {
        var buffer: [UInt8] = []
        var first = true
        for packet in packets {
            if !first { buffer.append(Self.separator) }
            first = false
            packet.appendPollingRecord(to: &buffer)
        }
        return buffer
    }

    /// The encoded length of one packet as a polling record, in bytes.
    package static func encodedLength(of packet: EnginePacket) -> Int {
        switch packet {
        case .binaryMessage(let bytes):
            return 1 + (bytes.count + 2) / 3 * 4
        default:
            return 1 + (packet.textData?.utf8.count ?? 0)
        }
    }

    /// How many packets from the front of `packets` fit one body of at most `maxPayload` bytes.
    ///
    /// The handshake's `maxPayload` tells the client how many packets to concatenate
    /// (engine.io-protocol v4, "HTTP long-polling"); a single packet larger than the limit is
    /// still sent alone, so progress is always made. Returns 0 only for an empty input.
    package static func batchCount(_ packets: some Collection<EnginePacket>, maxPayload: Int?) -> Int {
        guard let maxPayload else { return packets.count }
        var total = 0
        var count = 0
        for packet in packets {
            let length = Self.encodedLength(of: packet) + (count > 0 ? 1 : 0)
            if count > 0 && total + length > maxPayload {
                break
            }
            total += length
            count += 1
        }
        return count
    }

    /// Decodes a whole body at once (every record decoded from the body's own bytes,
    /// ``PollingPayloadDecoder/finish(with:)``).
    ///
    /// - Parameter maximumLength: the largest body accepted, in bytes.
    /// - Throws: ``EngineProtocolError``.
    package static func decode(_ body: [UInt8], maximumLength: Int = PollingPayloadDecoder.defaultMaximumLength) throws(EngineProtocolError)
        -> [EnginePacket]
    {
        try Self.decode(body, maximumLength: maximumLength, as: EnginePacket.self)
    }

    /// ``decode(_:maximumLength:)`` into records of another type (the client machine's
    /// ``EngineInboundPacket``).
    package static func decode<Record: PollingRecord>(
        _ body: [UInt8], maximumLength: Int, as: Record.Type
    ) throws(EngineProtocolError) -> [Record] {
        var decoder = PollingRecordReader<Record>(maximumLength: maximumLength)
        return try decoder.finish(with: body)
    }
}
