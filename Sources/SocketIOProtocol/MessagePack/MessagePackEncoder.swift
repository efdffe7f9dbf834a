package import EngineIOProtocol

/// Encodes a ``JSONValue`` as MessagePack, byte for byte as notepack.io (the encoder of
/// socket.io-msgpack-parser, the reference peer) writes the same JavaScript value.
///
/// MessagePack specification, "Formats" (github.com/msgpack/msgpack/blob/master/spec.md); each
/// value takes the smallest format that holds it:
///
/// - ``JSONValue/int(_:)``: positive fixint, uint 8/16/32/64 for values ≥ 0; negative fixint,
///   int 8/16/32/64 below 0 (notepack.io and python `msgpack.packb` agree).
/// - ``JSONValue/double(_:)``: a JavaScript number is one type, so notepack.io writes an
///   integral number as an integer (`1.0` → `0x01`, `-0.0` → `0x00`) and only fractions,
///   NaN and infinities as float 64. python `msgpack.packb(1.0)` writes float 64 `cb 3f f0 …`
///   instead; this encoder follows the JavaScript reference, so `.double(2)` and `.int(2)`
///   encode alike, as they do in JSON (`2`). Integral values outside [-2^63, 2^64), where
///   notepack.io's integer path would wrap, are written as float 64. Float 32 is never written.
/// - ``JSONValue/string(_:)``: fixstr, str 8/16/32 (UTF-8 bytes).
/// - ``JSONValue/binary(_:)``: bin 8/16/32 (notepack.io writes a Node `Buffer` so; python
///   writes `bytes` so).
/// - ``JSONValue/array(_:)``: fixarray, array 16/32; ``JSONValue/object(_:)``: fixmap,
///   map 16/32 with members in order and str keys.
///
/// No extension type is written: ``JSONValue`` has no `undefined` or `Date`.
///
/// ```swift
/// let bytes = try MessagePackEncoder.encode(["hi", 1])  // 92 a2 68 69 01
/// ```
package enum MessagePackEncoder {
    /// The MessagePack encoding of `value`.
    ///
    /// - Throws: ``MessagePackEncodingError`` when a string, binary, array or object holds
    ///   2^32 or more bytes or elements.
    package static func encode(_ value: JSONValue) throws(MessagePackEncodingError) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        try Self.append(value, to: &buffer)
        return buffer
    }

    /// Appends the MessagePack encoding of `value` to `buffer`.
    ///
    /// - Throws: ``MessagePackEncodingError``; `buffer` then holds a partial encoding.
    package static func append(_ value: JSONValue, to buffer: inout [UInt8]) throws(MessagePackEncodingError) {
        switch value {
        case .null:
            buffer.append(0xc0)
        case .bool(let flag):
            buffer.append(flag ? 0xc3 : 0xc2)
        case .int(let integer):
            Self.append(integer: Int64(integer), to: &buffer)
        case .double(let number):
            Self.append(number: number, to: &buffer)
        case .string(let text):
            let count = text.utf8.count
            try Self.appendHeader(count: count, fix: 0xa0, fixLimit: 32, formats: (0xd9, 0xda, 0xdb), to: &buffer)
            buffer.append(contentsOf: text.utf8)
        case .binary(let bytes):
            try Self.appendHeader(count: bytes.count, fix: nil, fixLimit: 0, formats: (0xc4, 0xc5, 0xc6), to: &buffer)
            buffer.append(contentsOf: bytes)
        case .array(let elements):
            try Self.appendHeader(count: elements.count, fix: 0x90, fixLimit: 16, formats: (nil, 0xdc, 0xdd), to: &buffer)
            for element in elements {
                try Self.append(element, to: &buffer)
            }
        case .object(let object):
            try Self.appendHeader(count: object.count, fix: 0x80, fixLimit: 16, formats: (nil, 0xde, 0xdf), to: &buffer)
            for (key, member) in object {
                try Self.append(.string(key), to: &buffer)
                try Self.append(member, to: &buffer)
            }
        }
    }

    // MARK: Numbers

    /// notepack.io's integer formats (the smallest; uint for values ≥ 0, int below).
    static func append(integer value: Int64, to buffer: inout [UInt8]) {
        if value >= 0 {
            Self.append(unsigned: UInt64(value), to: &buffer)
        } else if value >= -32 {
            buffer.append(UInt8(truncatingIfNeeded: value))
        } else if value >= -0x80 {
            buffer.append(0xd0)
            Self.appendBigEndian(UInt64(bitPattern: value), byteCount: 1, to: &buffer)
        } else if value >= -0x8000 {
            buffer.append(0xd1)
            Self.appendBigEndian(UInt64(bitPattern: value), byteCount: 2, to: &buffer)
        } else if value >= -0x8000_0000 {
            buffer.append(0xd2)
            Self.appendBigEndian(UInt64(bitPattern: value), byteCount: 4, to: &buffer)
        } else {
            buffer.append(0xd3)
            Self.appendBigEndian(UInt64(bitPattern: value), byteCount: 8, to: &buffer)
        }
    }

    static func append(unsigned value: UInt64, to buffer: inout [UInt8]) {
        if value < 0x80 {
            buffer.append(UInt8(value))
        } else if value < 0x100 {
            buffer.append(0xcc)
            Self.appendBigEndian(value, byteCount: 1, to: &buffer)
        } else if value < 0x1_0000 {
            buffer.append(0xcd)
            Self.appendBigEndian(value, byteCount: 2, to: &buffer)
        } else if value < 0x1_0000_0000 {
            buffer.append(0xce)
            Self.appendBigEndian(value, byteCount: 4, to: &buffer)
        } else {
            buffer.append(0xcf)
            Self.appendBigEndian(value, byteCount: 8, to: &buffer)
        }
    }

    /// notepack.io's number rule: integral and in range → an integer format, else float 64.
    static func append(number: Double, to buffer: inout [UInt8]) {
        // [-2^63, 2^63): Int64; [2^63, 2^64): UInt64. Truncation then comparison tells integral.
        if number >= -9_223_372_036_854_775_808.0, number < 9_223_372_036_854_775_808.0 {
            let integer = Int64(number)
            if Double(integer) == number {
                Self.append(integer: integer, to: &buffer)
                return
            }
        } else if number >= 9_223_372_036_854_775_808.0, number < 18_446_744_073_709_551_616.0 {
            // Every double this large is integral.
            Self.append(unsigned: UInt64(number), to: &buffer)
            return
        }
        buffer.append(0xcb)
        Self.appendBigEndian(number.bitPattern, byteCount: 8, to: &buffer)
    }

    // MARK: Headers

    /// The header of a str, bin, array or map of `count` bytes or elements: the fix format
    /// below `fixLimit`, then the 8-, 16- and 32-bit formats (`nil` where the type has none).
    private static func appendHeader(
        count: Int, fix: UInt8?, fixLimit: Int, formats: (UInt8?, UInt8, UInt8), to buffer: inout [UInt8]
    ) throws(MessagePackEncodingError) {
        if let fix, count < fixLimit {
            buffer.append(fix | UInt8(count))
        } else if let format8 = formats.0, count < 0x100 {
            buffer.append(format8)
            buffer.append(UInt8(count))
        } else if count < 0x1_0000 {
            buffer.append(formats.1)
            Self.appendBigEndian(UInt64(count), byteCount: 2, to: &buffer)
        } else if UInt64(count) < 0x1_0000_0000 {
            buffer.append(formats.2)
            Self.appendBigEndian(UInt64(count), byteCount: 4, to: &buffer)
        } else {
            throw MessagePackEncodingError(length: count)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to buffer: inout [UInt8]) {
        var shift = 8 * (byteCount - 1)
        while shift >= 0 {
            buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
