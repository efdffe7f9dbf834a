/// RFC 4648 section 4 base64 (standard alphabet): the package's one base64.
///
/// Binary packets inside Engine.IO polling payloads ("Binary payloads MUST be base64-encoded
/// and prefixed with a `b` character", engine.io-protocol v4, "Packet encoding" / "HTTP
/// long-polling"), the `Sec-WebSocket-Key` and `Sec-WebSocket-Accept` values (RFC 6455 §4.1),
/// and `Proxy-Authorization: Basic` credentials (RFC 7617).
///
/// ```swift
/// Base64.encodedString(Array("Man".utf8))   // "TWFu"
/// Base64.decode("AQIDBA==")                 // [1, 2, 3, 4]
/// ```
package enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0...63 for alphabet bytes, 0xFF otherwise.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in Self.alphabet.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    /// Whether `byte` is one of the alphabet's characters or the padding `=`.
    package static func isAlphabetOrPadding(_ byte: UInt8) -> Bool {
        Self.decodeTable[Int(byte)] != 0xFF || byte == UInt8(ascii: "=")
    }

    /// Appends the padded base64 text of `bytes` to `buffer`.
    package static func encode(_ bytes: [UInt8], into buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + (bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            buffer.append(Self.alphabet[Int(chunk >> 18 & 0x3F)])
            buffer.append(Self.alphabet[Int(chunk >> 12 & 0x3F)])
            buffer.append(Self.alphabet[Int(chunk >> 6 & 0x3F)])
            buffer.append(Self.alphabet[Int(chunk & 0x3F)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let chunk = UInt32(bytes[index]) << 16
            buffer.append(Self.alphabet[Int(chunk >> 18 & 0x3F)])
            buffer.append(Self.alphabet[Int(chunk >> 12 & 0x3F)])
            buffer.append(UInt8(ascii: "="))
            buffer.append(UInt8(ascii: "="))
        } else if remaining == 2 {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            buffer.append(Self.alphabet[Int(chunk >> 18 & 0x3F)])
            buffer.append(Self.alphabet[Int(chunk >> 12 & 0x3F)])
            buffer.append(Self.alphabet[Int(chunk >> 6 & 0x3F)])
            buffer.append(UInt8(ascii: "="))
        }
    }

    /// The padded base64 text of `bytes`.
    package static func encodedString(_ bytes: [UInt8]) -> String {
        var buffer: [UInt8] = []
        Self.encode(bytes, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Decodes base64 text; padding is optional, but when present it must be correct.
    ///
    /// - Returns: the bytes, or `nil` for characters outside the alphabet, a length that no
    ///   encoding produces, misplaced padding, or non-zero unused bits.
    package static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var length = text.count
        var padding = 0
        while length > 0, text[length - 1] == UInt8(ascii: "=") {
            length -= 1
            padding += 1
        }
        guard padding <= 2 else { return nil }
        if padding > 0 {
            guard text.count % 4 == 0 else { return nil }
        }
        guard length % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(length / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<length {
            let value = Self.decodeTable[Int(text[index])]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero (canonical encoding).
        guard accumulator == 0 else { return nil }
        if padding > 0 {
            guard (length + padding) % 4 == 0, padding == (4 - length % 4) % 4 else { return nil }
        }
        return output
    }

    /// Decodes base64 text held in a string; see ``decode(_:)-(UnsafeBufferPointer<UInt8>)``.
    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { Self.decode($0) }
    }
}
