/// Why a piece of text is not JSON, with the byte offset where reading stopped.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The UTF-8 offset in the text that was read.
    package var offset: Int
    package var reason: String

    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    package var description: String { "invalid JSON at offset \(self.offset): \(self.reason)" }
}

/// A strict JSON reader (RFC 8259) over UTF-8 bytes, with a nesting limit.
///
/// Reads one value (``JSON/parse(_:)``) or a whitespace-separated sequence of values
/// (``JSON/parseSequence(_:)``, what an interactive `event [json ...]` line holds).
struct JSONParser {
    /// The deepest nesting accepted (arrays and objects), so hostile input cannot exhaust the stack.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ text: Substring) {
        self.bytes = Array(text.utf8)
    }

    var isAtEnd: Bool { self.position >= self.bytes.count }

    mutating func skipWhitespace() {
        while self.position < self.bytes.count {
            switch self.bytes[self.position] {
            case 0x20, 0x09, 0x0A, 0x0D: self.position += 1
            default: return
            }
        }
    }

    /// Reads one value starting at the current position (after whitespace).
    mutating func parseValue(depth: Int = 0) throws(JSONSyntaxError) -> JSON {
        self.skipWhitespace()
        guard let byte = self.peek() else { throw self.error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"):
            return try self.parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            return try self.parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try self.parseString())
        case UInt8(ascii: "t"):
            try self.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try self.expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try self.expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try self.parseNumber()
        default:
            throw self.error("unexpected character '\(Self.printable(byte))'")
        }
    }

    // MARK: Containers

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSON {
        guard depth <= Self.maximumDepth else { throw self.error("nesting deeper than \(Self.maximumDepth) levels") }
        self.position += 1  // {
        var members: [JSON.Member] = []
        self.skipWhitespace()
        if self.peek() == UInt8(ascii: "}") {
            self.position += 1
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.peek() == UInt8(ascii: "\"") else { throw self.error("expected a string key") }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.peek() == UInt8(ascii: ":") else { throw self.error("expected ':' after an object key") }
            self.position += 1
            members.append(JSON.Member(key, try self.parseValue(depth: depth)))
            self.skipWhitespace()
            switch self.peek() {
            case UInt8(ascii: ","):
                self.position += 1
            case UInt8(ascii: "}"):
                self.position += 1
                return .object(members)
            default:
                throw self.error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSON {
        guard depth <= Self.maximumDepth else { throw self.error("nesting deeper than \(Self.maximumDepth) levels") }
        self.position += 1  // [
        var elements: [JSON] = []
        self.skipWhitespace()
        if self.peek() == UInt8(ascii: "]") {
            self.position += 1
            return .array(elements)
        }
        while true {
            elements.append(try self.parseValue(depth: depth))
            self.skipWhitespace()
            switch self.peek() {
            case UInt8(ascii: ","):
                self.position += 1
            case UInt8(ascii: "]"):
                self.position += 1
                return .array(elements)
            default:
                throw self.error("expected ',' or ']' in an array")
            }
        }
    }

    // MARK: Scalars

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let expected = literal.withUTF8Buffer { Array($0) }
        guard self.bytes.count - self.position >= expected.count,
            Array(self.bytes[self.position..<self.position + expected.count]) == expected
        else {
            throw self.error("expected '\(literal)'")
        }
        self.position += expected.count
        try self.expectDelimiter()
    }

    /// A scalar must be followed by the end, whitespace or a structural character
    /// (so `truex` or `12abc` is not read as `true` / `12`).
    private func expectDelimiter() throws(JSONSyntaxError) {
        guard let next = self.peek() else { return }
        switch next {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"):
            return
        default:
            throw self.error("unexpected character '\(Self.printable(next))' after a value")
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSON {
        let start = self.position
        var isInteger = true
        if self.peek() == UInt8(ascii: "-") { self.position += 1 }
        guard let first = self.peek(), Self.isDigit(first) else { throw self.error("expected a digit") }
        if first == UInt8(ascii: "0") {
            self.position += 1
            if let next = self.peek(), Self.isDigit(next) { throw self.error("leading zeros are not allowed") }
        } else {
            self.skipDigits()
        }
        if self.peek() == UInt8(ascii: ".") {
            isInteger = false
            self.position += 1
            guard let next = self.peek(), Self.isDigit(next) else { throw self.error("expected a digit after '.'") }
            self.skipDigits()
        }
        if self.peek() == UInt8(ascii: "e") || self.peek() == UInt8(ascii: "E") {
            isInteger = false
            self.position += 1
            if self.peek() == UInt8(ascii: "+") || self.peek() == UInt8(ascii: "-") { self.position += 1 }
            guard let next = self.peek(), Self.isDigit(next) else { throw self.error("expected a digit in the exponent") }
            self.skipDigits()
        }
        try self.expectDelimiter()
        let text = String(decoding: self.bytes[start..<self.position], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text) else { throw JSONSyntaxError(offset: start, reason: "number out of range") }
        return .double(value)
    }

    private mutating func skipDigits() {
        while let byte = self.peek(), Self.isDigit(byte) { self.position += 1 }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        self.position += 1  // opening quote
        var result = ""
        var runStart = self.position
        while true {
            guard let byte = self.peek() else { throw self.error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                result += String(decoding: self.bytes[runStart..<self.position], as: UTF8.self)
                self.position += 1
                return result
            case UInt8(ascii: "\\"):
                result += String(decoding: self.bytes[runStart..<self.position], as: UTF8.self)
                self.position += 1
                result.unicodeScalars.append(try self.parseEscape())
                runStart = self.position
            case 0x00..<0x20:
                throw self.error("control character in a string (escape it)")
            default:
                self.position += 1
            }
        }
    }

    private mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard let byte = self.peek() else { throw self.error("unterminated escape") }
        self.position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try self.parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard self.peek() == UInt8(ascii: "\\"), self.peek(offset: 1) == UInt8(ascii: "u") else {
                    throw self.error("unpaired surrogate")
                }
                self.position += 2
                let second = try self.parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw self.error("unpaired surrogate") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw self.error("invalid code point") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw self.error("unpaired surrogate") }
            return scalar
        default:
            throw self.error("invalid escape '\\\(Self.printable(byte))'")
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = self.peek() else { throw self.error("expected 4 hex digits") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw self.error("expected 4 hex digits")
            }
            value = value << 4 | digit
            self.position += 1
        }
        return value
    }

    // MARK: Helpers

    private func peek(offset: Int = 0) -> UInt8? {
        let index = self.position + offset
        return index < self.bytes.count ? self.bytes[index] : nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: self.position, reason: reason)
    }
}

extension JSON {
    /// Parses `text` as exactly one JSON value (surrounding whitespace allowed).
    ///
    /// - Throws: ``JSONSyntaxError`` for anything else, including trailing text.
    package static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
        var parser = JSONParser(Substring(text))
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.isAtEnd else {
            throw JSONSyntaxError(offset: parser.position, reason: "unexpected text after the value")
        }
        return value
    }

    /// Parses `text` as zero or more JSON values separated by whitespace (`1 "two" {"three": 3}`).
    ///
    /// - Throws: ``JSONSyntaxError`` at the first value that does not parse.
    package static func parseSequence(_ text: Substring) throws(JSONSyntaxError) -> [JSON] {
        var parser = JSONParser(text)
        var values: [JSON] = []
        parser.skipWhitespace()
        while !parser.isAtEnd {
            values.append(try parser.parseValue())
            parser.skipWhitespace()
        }
        return values
    }
}
