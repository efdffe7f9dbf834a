import Foundation

/// JSON for socket.io payloads, mapping to and from the `[Any]` values of the public API.
///
/// Decoding yields `Bool`, `Int`, `Double`, `String`, `NSNull`, `[Any]` and `[String: Any]`:
/// `true` stays a `Bool` and `1` an `Int` on every platform (Foundation's `JSONSerialization`
/// returns `NSNumber`s, which on Linux answer `is Bool` for `1`). Encoding checks `Bool`
/// before numbers for the same reason and reads `NSNumber`s by their `objCType`.
enum SocketJSON {
    /// Deepest nesting accepted when decoding; deeper input is rejected, never recursed into.
    static let maximumDepth = 256

    enum DecodingError: Error, Equatable {
        case unexpectedEnd
        case unexpectedCharacter(offset: Int)
        case tooDeep
        case invalidNumber(offset: Int)
        case invalidEscape(offset: Int)
    }

    // MARK: Encoding

    /// The JSON text of `value` (RFC 8259). Values JSON cannot hold become `null`.
    static func serialize(_ value: Any) -> String {
        var out = ""
        self.write(value, into: &out, depth: 0)
        return out
    }

    private static func write(_ value: Any, into out: inout String, depth: Int) {
        guard depth < self.maximumDepth else {
            out += "null"
            return
        }
        switch value {
        case let bool as Bool where type(of: value) == Bool.self:
            out += bool ? "true" : "false"
        case let string as String:
            self.writeString(string, into: &out)
        case let int as Int where type(of: value) == Int.self:
            out += String(int)
        case let double as Double where type(of: value) == Double.self:
            self.writeDouble(double, into: &out)
        case let float as Float where type(of: value) == Float.self:
            self.writeDouble(Double(float), into: &out)
        case let int as any BinaryInteger:
            out += String(describing: int)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B":
                out += number.boolValue ? "true" : "false"
            case "f", "d":
                self.writeDouble(number.doubleValue, into: &out)
            case "Q":
                out += String(number.uint64Value)
            default:
                out += String(number.int64Value)
            }
        case is NSNull:
            out += "null"
        case let string as NSString:
            self.writeString(string as String, into: &out)
        case let array as [Any]:
            out += "["
            for (index, element) in array.enumerated() {
                if index > 0 { out += "," }
                self.write(element, into: &out, depth: depth + 1)
            }
            out += "]"
        case let dictionary as [String: Any]:
            out += "{"
            var first = true
            for (key, element) in dictionary.sorted(by: { $0.key < $1.key }) {
                if !first { out += "," }
                first = false
                self.writeString(key, into: &out)
                out += ":"
                self.write(element, into: &out, depth: depth + 1)
            }
            out += "}"
        case let array as NSArray:
            self.write(array.map { $0 }, into: &out, depth: depth)
        case let dictionary as NSDictionary:
            var converted: [String: Any] = [:]
            for (key, element) in dictionary {
                converted[String(describing: key)] = element
            }
            self.write(converted, into: &out, depth: depth)
        case let custom as SocketData:
            // A nested custom type: use its representation if it is a different value.
            if let representation = try? custom.socketRepresentation(),
               type(of: representation) != type(of: custom) {
                self.write(representation, into: &out, depth: depth + 1)
            } else {
                out += "null"
            }
        default:
            out += "null"
        }
    }

    private static func writeDouble(_ double: Double, into out: inout String) {
        guard double.isFinite else {
            out += "null"
            return
        }
        out += "\(double)"
    }

    private static func writeString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    // MARK: Decoding

    /// Parses one JSON value that fills `text` (surrounding whitespace allowed).
    ///
    /// - Throws: ``DecodingError`` on malformed input or nesting deeper than ``maximumDepth``.
    static func parse(_ text: Substring) throws(DecodingError) -> Any {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else {
            throw .unexpectedCharacter(offset: parser.index)
        }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while self.index < self.bytes.count {
                switch self.bytes[self.index] {
                case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(DecodingError) -> Any {
            guard depth < SocketJSON.maximumDepth else { throw .tooDeep }
            self.skipWhitespace()
            guard self.index < self.bytes.count else { throw .unexpectedEnd }
            switch self.bytes[self.index] {
            case UInt8(ascii: "{"):
                return try self.parseObject(depth: depth)
            case UInt8(ascii: "["):
                return try self.parseArray(depth: depth)
            case UInt8(ascii: "\""):
                return try self.parseString()
            case UInt8(ascii: "t"):
                try self.expect("true")
                return true
            case UInt8(ascii: "f"):
                try self.expect("false")
                return false
            case UInt8(ascii: "n"):
                try self.expect("null")
                return NSNull()
            default:
                return try self.parseNumber()
            }
        }

        mutating func expect(_ literal: StaticString) throws(DecodingError) {
            let count = literal.utf8CodeUnitCount
            guard self.index + count <= self.bytes.count else { throw .unexpectedEnd }
            let matches = literal.withUTF8Buffer { buffer in
                buffer.elementsEqual(self.bytes[self.index..<(self.index + count)])
            }
            guard matches else { throw .unexpectedCharacter(offset: self.index) }
            self.index += count
        }

        mutating func parseObject(depth: Int) throws(DecodingError) -> [String: Any] {
            self.index += 1
            var result: [String: Any] = [:]
            self.skipWhitespace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
                self.index += 1
                return result
            }
            while true {
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw .unexpectedEnd }
                guard self.bytes[self.index] == UInt8(ascii: "\"") else { throw .unexpectedCharacter(offset: self.index) }
                let key = try self.parseString()
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw .unexpectedEnd }
                guard self.bytes[self.index] == UInt8(ascii: ":") else { throw .unexpectedCharacter(offset: self.index) }
                self.index += 1
                result[key] = try self.parseValue(depth: depth + 1)
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw .unexpectedEnd }
                switch self.bytes[self.index] {
                case UInt8(ascii: ","): self.index += 1
                case UInt8(ascii: "}"):
                    self.index += 1
                    return result
                default: throw .unexpectedCharacter(offset: self.index)
                }
            }
        }

        mutating func parseArray(depth: Int) throws(DecodingError) -> [Any] {
            self.index += 1
            var result: [Any] = []
            self.skipWhitespace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
                self.index += 1
                return result
            }
            while true {
                result.append(try self.parseValue(depth: depth + 1))
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw .unexpectedEnd }
                switch self.bytes[self.index] {
                case UInt8(ascii: ","): self.index += 1
                case UInt8(ascii: "]"):
                    self.index += 1
                    return result
                default: throw .unexpectedCharacter(offset: self.index)
                }
            }
        }

        mutating func parseHex4() throws(DecodingError) -> UInt32 {
            guard self.index + 4 <= self.bytes.count else { throw .unexpectedEnd }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = self.bytes[self.index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw .invalidEscape(offset: self.index)
                }
                value = value << 4 | digit
                self.index += 1
            }
            return value
        }

        mutating func parseString() throws(DecodingError) -> String {
            self.index += 1
            var result = ""
            var runStart = self.index
            while true {
                guard self.index < self.bytes.count else { throw .unexpectedEnd }
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: "\"") {
                    result += String(decoding: self.bytes[runStart..<self.index], as: UTF8.self)
                    self.index += 1
                    return result
                }
                if byte < 0x20 { throw .unexpectedCharacter(offset: self.index) }
                if byte != UInt8(ascii: "\\") {
                    self.index += 1
                    continue
                }
                result += String(decoding: self.bytes[runStart..<self.index], as: UTF8.self)
                self.index += 1
                guard self.index < self.bytes.count else { throw .unexpectedEnd }
                let escape = self.bytes[self.index]
                self.index += 1
                switch escape {
                case UInt8(ascii: "\""): result.unicodeScalars.append("\"")
                case UInt8(ascii: "\\"): result.unicodeScalars.append("\\")
                case UInt8(ascii: "/"): result.unicodeScalars.append("/")
                case UInt8(ascii: "b"): result.unicodeScalars.append("\u{08}")
                case UInt8(ascii: "f"): result.unicodeScalars.append("\u{0C}")
                case UInt8(ascii: "n"): result.unicodeScalars.append("\n")
                case UInt8(ascii: "r"): result.unicodeScalars.append("\r")
                case UInt8(ascii: "t"): result.unicodeScalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try self.parseHex4()
                    if (0xD800...0xDBFF).contains(code),
                       self.index + 6 <= self.bytes.count,
                       self.bytes[self.index] == UInt8(ascii: "\\"),
                       self.bytes[self.index + 1] == UInt8(ascii: "u") {
                        let save = self.index
                        self.index += 2
                        let low = try self.parseHex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            self.index = save
                        }
                    }
                    result.unicodeScalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default:
                    throw .invalidEscape(offset: self.index - 1)
                }
                runStart = self.index
            }
        }

        mutating func parseNumber() throws(DecodingError) -> Any {
            let start = self.index
            var isInteger = true
            var digits = 0
            scan: while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    digits += 1
                case UInt8(ascii: "-") where self.index == start:
                    break
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                    isInteger = false
                default:
                    break scan
                }
                self.index += 1
            }
            guard digits > 0 else { throw .invalidNumber(offset: start) }
            let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
            if isInteger, let int = Int(text) {
                return int
            }
            guard let double = Double(text), double.isFinite else { throw .invalidNumber(offset: start) }
            return double
        }
    }
}
