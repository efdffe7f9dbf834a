import RealtimeEncoding

/// Engine.IO v3 polling payloads (engine.io-protocol v3, "Encoding" / "Payload").
///
/// Text form: `<length>:<packet>[<length>:<packet>…]`, binary packets as `b<type><base64>`
/// (with `b64=1`). Binary (XHR2) form, sent by servers to clients that did not ask for base64:
/// `<0|1><length as bytes 0-9><0xFF><packet>…`, where `1` marks a binary packet whose first byte
/// is the packet type.
///
/// The reference implementation (JavaScript) counts `<length>` in UTF-16 code units;
/// python-engineio 3.x writes the UTF-8 byte length. The decoder accepts either: when the two
/// readings disagree (non-ASCII text), it takes the one after which the body ends or a next
/// `<digits>:` header follows, preferring UTF-16. The encoder writes UTF-16 lengths, as the
/// JavaScript client and socket.io-client-swift do.
package enum EnginePollingPayloadV3 {
    /// The body carrying `packets` in the v3 text form.
    package static func encode(_ packets: some Sequence<EnginePacket>) -> [UInt8] {
        var buffer: [UInt8] = []
        for packet in packets {
            var record: [UInt8] = []
            let length: Int
            switch packet {
            case .binaryMessage(let bytes):
                record.append(UInt8(ascii: "b"))
                record.append(EnginePacketType.message.asciiDigit)
                Base64.encode(bytes, into: &record)
                length = record.count
            default:
                record.append(packet.type.asciiDigit)
                let text = packet.textData ?? ""
                record.append(contentsOf: text.utf8)
                length = 1 + text.utf16.count
            }
            JSONNumberFormatter.append(length, to: &buffer)
            buffer.append(UInt8(ascii: ":"))
            buffer.append(contentsOf: record)
        }
        return buffer
    }

    /// Decodes a whole v3 body (text or binary form).
    ///
    /// - Throws: ``EngineProtocolError`` for malformed framing or packets, or a body over `maximumLength`.
    package static func decode(_ body: [UInt8], maximumLength: Int = PollingPayloadDecoder.defaultMaximumLength) throws(EngineProtocolError)
        -> [EnginePacket]
    {
        guard body.count <= maximumLength else {
            throw .payloadTooLarge(limit: maximumLength)
        }
        guard let first = body.first else { return [] }
        let result = body.withUnsafeBufferPointer { buffer -> Result<[EnginePacket], EngineProtocolError> in
            do throws(EngineProtocolError) {
                return .success(first <= 1 ? try Self.decodeBinaryForm(buffer) : try Self.decodeTextForm(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Text form

    private static func decodeTextForm(_ body: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError) -> [EnginePacket] {
        var packets: [EnginePacket] = []
        var index = 0
        while index < body.count {
            guard let (length, start) = Self.header(in: body, at: index) else {
                throw .invalidLengthPrefix
            }
            guard length > 0 else { throw .emptyPacket }
            let byteEnd = start + length
            let utf16End = Self.offsetAfter(utf16Units: length, in: body, from: start)
            let end: Int
            switch (utf16End, byteEnd <= body.count ? byteEnd : nil) {
            case (let a?, let b?) where a == b:
                end = a
            case (let a?, let b?):
                if Self.isBoundary(body, at: a) {
                    end = a
                } else if Self.isBoundary(body, at: b) {
                    end = b
                } else {
                    throw .invalidLengthPrefix
                }
            case (let a?, nil):
                end = a
            case (nil, let b?):
                end = b
            case (nil, nil):
                throw .invalidLengthPrefix
            }
            let record = UnsafeBufferPointer(rebasing: body[start..<end])
            packets.append(try Self.decodeTextRecord(record))
            index = end
        }
        return packets
    }

    /// Reads `<digits>:` at `index`; returns the length and the offset after the colon.
    private static func header(in body: UnsafeBufferPointer<UInt8>, at index: Int) -> (Int, Int)? {
        var cursor = index
        var value = 0
        while cursor < body.count, body[cursor] != UInt8(ascii: ":") {
            let digit = body[cursor] &- UInt8(ascii: "0")
            guard digit < 10, cursor - index < 10 else { return nil }
            value = value * 10 + Int(digit)
            cursor += 1
        }
        guard cursor > index, cursor < body.count else { return nil }
        return (value, cursor + 1)
    }

    /// `true` at the end of the body or before another `<digits>:` header.
    private static func isBoundary(_ body: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        offset == body.count || Self.header(in: body, at: offset) != nil
    }

    /// The byte offset after `units` UTF-16 code units of UTF-8 text starting at `start`, or
    /// `nil` when the body ends first or holds invalid UTF-8 on the way.
    private static func offsetAfter(utf16Units units: Int, in body: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var remaining = units
        var cursor = start
        while remaining > 0 {
            guard cursor < body.count else { return nil }
            let lead = body[cursor]
            let width: Int
            let unitCount: Int
            switch lead {
            case 0..<0x80:
                width = 1
                unitCount = 1
            case 0xC2...0xDF:
                width = 2
                unitCount = 1
            case 0xE0...0xEF:
                width = 3
                unitCount = 1
            case 0xF0...0xF4:
                width = 4
                unitCount = 2
            default: return nil
            }
            guard remaining >= unitCount, cursor + width <= body.count else { return nil }
            cursor += width
            remaining -= unitCount
        }
        return cursor
    }

    private static func decodeTextRecord(_ record: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError) -> EnginePacket {
        if record.first == UInt8(ascii: "b") {
            guard record.count >= 2 else { throw .emptyPacket }
            guard record[1] == EnginePacketType.message.asciiDigit else {
                throw .unknownPacketType(record[1])
            }
            guard let bytes = Base64.decode(UnsafeBufferPointer(rebasing: record[2...])) else {
                throw .invalidBase64
            }
            return .binaryMessage(bytes)
        }
        return try EnginePacket(textRecord: record)
    }

    // MARK: Binary form

    private static func decodeBinaryForm(_ body: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError) -> [EnginePacket] {
        var packets: [EnginePacket] = []
        var index = 0
        while index < body.count {
            let kind = body[index]
            guard kind <= 1 else { throw .invalidLengthPrefix }
            index += 1
            var length = 0
            let digitsStart = index
            while index < body.count, body[index] != 0xFF {
                guard body[index] < 10, index - digitsStart < 10 else { throw .invalidLengthPrefix }
                length = length * 10 + Int(body[index])
                index += 1
            }
            guard index > digitsStart, index < body.count else { throw .invalidLengthPrefix }
            index += 1  // 0xFF
            guard length > 0 else { throw .emptyPacket }
            guard length <= body.count - index else { throw .invalidLengthPrefix }
            let record = UnsafeBufferPointer(rebasing: body[index..<(index + length)])
            if kind == 0 {
                packets.append(try Self.decodeTextRecord(record))
            } else {
                guard record[0] == EnginePacketType.message.rawValue else {
                    throw .unknownPacketType(record[0])
                }
                packets.append(.binaryMessage(Array(record[1...])))
            }
            index += length
        }
        return packets
    }
}
