/// Compact JSON text output, byte-compatible with JavaScript's `JSON.stringify` for the values
/// Socket.IO carries (ECMA-262 section 25.5.2.2, `JSON.stringify`; RFC 8259 section 7 for
/// string escapes).
///
/// - Strings escape `"` and `\`, and control characters as `\b \f \n \r \t` or `\u00XX`;
///   everything else, including non-ASCII, is written as UTF-8.
/// - Integral doubles print like JavaScript numbers (`1.0` → `1`, `1e21` → `1e+21`), fractions
///   print the shortest text that round-trips; NaN and infinities print `null` as in JavaScript.
/// - ``JSONValue/binary(_:)`` prints a Socket.IO placeholder `{"_placeholder":true,"num":n}`
///   numbered in traversal order from `nextPlaceholder`.
extension JSONValue {
    /// Appends the compact JSON text of this value to `buffer`.
    ///
    /// - Parameter nextPlaceholder: the `num` of the next binary placeholder; advanced once per
    ///   ``binary(_:)`` value written.
    package func serialize(into buffer: inout [UInt8], nextPlaceholder: inout Int) {
        switch self {
        case .null:
            buffer.append(contentsOf: JSONSerializationConstants.null)
        case .bool(let value):
            buffer.append(contentsOf: value ? JSONSerializationConstants.true : JSONSerializationConstants.false)
        case .int(let value):
            JSONNumberFormatter.append(value, to: &buffer)
        case .double(let value):
            JSONNumberFormatter.append(value, to: &buffer)
        case .string(let value):
            JSONStringEscaper.append(value, to: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                element.serialize(into: &buffer, nextPlaceholder: &nextPlaceholder)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in object {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                JSONStringEscaper.append(key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                value.serialize(into: &buffer, nextPlaceholder: &nextPlaceholder)
            }
            buffer.append(UInt8(ascii: "}"))
        case .binary:
            buffer.append(contentsOf: JSONSerializationConstants.placeholderPrefix)
            JSONNumberFormatter.append(nextPlaceholder, to: &buffer)
            buffer.append(UInt8(ascii: "}"))
            nextPlaceholder += 1
        }
    }

    /// Appends the compact JSON text of this value to `buffer` (placeholders numbered from 0).
    package func serialize(into buffer: inout [UInt8]) {
        var placeholder = 0
        self.serialize(into: &buffer, nextPlaceholder: &placeholder)
    }

    /// The compact JSON text of this value as UTF-8 bytes.
    package func serializedBytes() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        self.serialize(into: &buffer)
        return buffer
    }

    /// The compact JSON text of this value.
    package func serializedString() -> String {
        String(decoding: self.serializedBytes(), as: UTF8.self)
    }
}

/// Byte constants of the serializer.
enum JSONSerializationConstants {
    static let null: [UInt8] = Array("null".utf8)
    static let `true`: [UInt8] = Array("true".utf8)
    static let `false`: [UInt8] = Array("false".utf8)
    static let placeholderPrefix: [UInt8] = Array(#"{"_placeholder":true,"num":"#.utf8)
}

/// Writes JSON string literals (RFC 8259 section 7) the way `JSON.stringify` does.
package enum JSONStringEscaper {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `"` + escaped `string` + `"` to `buffer`.
    package static func append(_ string: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                if runStart < index {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                buffer.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                case 0x08: buffer.append(UInt8(ascii: "b"))
                case 0x0C: buffer.append(UInt8(ascii: "f"))
                case 0x0A: buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(UInt8(ascii: "r"))
                case 0x09: buffer.append(UInt8(ascii: "t"))
                default:
                    buffer.append(UInt8(ascii: "u"))
                    buffer.append(UInt8(ascii: "0"))
                    buffer.append(UInt8(ascii: "0"))
                    buffer.append(Self.hexDigits[Int(byte >> 4)])
                    buffer.append(Self.hexDigits[Int(byte & 0x0F)])
                }
                index += 1
                runStart = index
            }
            if runStart < count {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
