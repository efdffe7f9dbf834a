import RealtimeEncoding

/// A strict, allocation-light JSON parser (RFC 8259) producing ``JSONValue``.
///
/// - Accepts exactly the RFC 8259 grammar: any value at the top level, surrounded by optional
///   whitespace (space, tab, LF, CR); no comments, no trailing commas, no `NaN`.
/// - Strings must be well-formed UTF-8 without raw control characters; `\uXXXX` escapes are
///   decoded, surrogate pairs combined, and a lone surrogate rejected (Swift strings cannot
///   hold one).
/// - Numbers that are integers (no fraction, no exponent) and fit `Int` become ``JSONValue/int(_:)``;
///   all others ``JSONValue/double(_:)`` (correctly rounded). `true`/`false` become
///   ``JSONValue/bool(_:)`` only.
/// - Nesting is bounded by ``maximumDepth`` so hostile input (`[[[[…`) fails with
///   ``JSONParseError/Kind/depthLimitExceeded(limit:)`` instead of exhausting the stack.
///
/// ```swift
/// let value = try JSONParser().parse(Array(#"{"sid":"abc"}"#.utf8))
/// ```
package struct JSONParser: Sendable {
    /// The deepest allowed nesting of arrays and objects.
    package var maximumDepth: Int

    /// A parser with the given depth limit (default 128).
    package init(maximumDepth: Int = 128) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON text.
    ///
    /// - Throws: ``JSONParseError`` describing the first problem found.
    package func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var reader = JSONReader(bytes: bytes, maximumDepth: self.maximumDepth)
        reader.skipWhitespace()
        let value = try reader.parseValue(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else {
            throw JSONParseError(.trailingData, at: reader.index)
        }
        return value
    }

    /// Parses one JSON text from bytes.
    ///
    /// - Throws: ``JSONParseError`` describing the first problem found.
    package func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JSONParseError) {
                return .success(try self.parse(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses one JSON text from a slice of bytes; offsets in errors are relative to the slice.
    ///
    /// - Throws: ``JSONParseError`` describing the first problem found.
    package func parse(_ bytes: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JSONParseError) {
                return .success(try self.parse(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses one JSON text from a string.
    ///
    /// - Throws: ``JSONParseError`` describing the first problem found.
    package func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONParseError> = text.withUTF8 { buffer in
            do throws(JSONParseError) {
                return .success(try self.parse(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

extension JSONValue {
    /// Parses a JSON text with the default ``JSONParser``.
    ///
    /// - Throws: ``JSONParseError``.
    package init(parsing text: String) throws(JSONParseError) {
        self = try JSONParser().parse(text)
    }

    /// Parses a UTF-8 JSON text with the default ``JSONParser``.
    ///
    /// - Throws: ``JSONParseError``.
    package init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self = try JSONParser().parse(bytes)
    }
}

// MARK: - Reader

/// The cursor of one parse; lives on the stack for the duration of ``JSONParser/parse(_:)``
/// (or ``JSONParser/parseSequence(_:)``).
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index: Int = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                self.index += 1
            default:
                return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard self.index < self.bytes.count else {
            throw JSONParseError(.unexpectedEnd, at: self.index)
        }
        switch self.bytes[self.index] {
        case UInt8(ascii: "\""):
            return .string(try self.parseString())
        case UInt8(ascii: "["):
            return try self.parseArray(depth: depth + 1)
        case UInt8(ascii: "{"):
            return try self.parseObject(depth: depth + 1)
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
        case let byte:
            throw JSONParseError(.unexpectedByte(byte), at: self.index)
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for offset in 0..<count {
            guard self.index < self.bytes.count else {
                throw JSONParseError(.unexpectedEnd, at: self.index)
            }
            let byte = self.bytes[self.index]
            guard byte == start[offset] else {
                throw JSONParseError(.unexpectedByte(byte), at: self.index)
            }
            self.index += 1
        }
    }

    // MARK: Containers

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= self.maximumDepth else {
            throw JSONParseError(.depthLimitExceeded(limit: self.maximumDepth), at: self.index)
        }
        self.index += 1  // [
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
            self.index += 1
            return .array(elements)
        }
        // Room for a packet's usual few arguments at once: one allocation for an ack's
        // `["text", 1]`, which growing from empty would allocate twice.
        elements.reserveCapacity(4)
        while true {
            self.skipWhitespace()
            elements.append(try self.parseValue(depth: depth))
            self.skipWhitespace()
            guard self.index < self.bytes.count else {
                throw JSONParseError(.unexpectedEnd, at: self.index)
            }
            switch self.bytes[self.index] {
            case UInt8(ascii: ","):
                self.index += 1
            case UInt8(ascii: "]"):
                self.index += 1
                return .array(elements)
            case let byte:
                throw JSONParseError(.unexpectedByte(byte), at: self.index)
            }
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= self.maximumDepth else {
            throw JSONParseError(.depthLimitExceeded(limit: self.maximumDepth), at: self.index)
        }
        self.index += 1  // {
        var object = JSONObject()
        self.skipWhitespace()
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
            self.index += 1
            return .object(object)
        }
        while true {
            self.skipWhitespace()
            guard self.index < self.bytes.count else {
                throw JSONParseError(.unexpectedEnd, at: self.index)
            }
            guard self.bytes[self.index] == UInt8(ascii: "\"") else {
                throw JSONParseError(.unexpectedByte(self.bytes[self.index]), at: self.index)
            }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.index < self.bytes.count else {
                throw JSONParseError(.unexpectedEnd, at: self.index)
            }
            guard self.bytes[self.index] == UInt8(ascii: ":") else {
                throw JSONParseError(.unexpectedByte(self.bytes[self.index]), at: self.index)
            }
            self.index += 1
            self.skipWhitespace()
            let value = try self.parseValue(depth: depth)
            object.append(key: key, value: value)
            self.skipWhitespace()
            guard self.index < self.bytes.count else {
                throw JSONParseError(.unexpectedEnd, at: self.index)
            }
            switch self.bytes[self.index] {
            case UInt8(ascii: ","):
                self.index += 1
            case UInt8(ascii: "}"):
                self.index += 1
                return .object(object)
            case let byte:
                throw JSONParseError(.unexpectedByte(byte), at: self.index)
            }
        }
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(JSONParseError) -> String {
        self.index += 1  // opening quote
        let start = self.index
        var isASCII = true
        // Fast path: no escapes.
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                let segment = UnsafeBufferPointer(rebasing: self.bytes[start..<self.index])
                if !isASCII {
                    try Self.validateUTF8(segment, baseOffset: start)
                }
                self.index += 1
                return String(decoding: segment, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                break
            }
            if byte < 0x20 {
                throw JSONParseError(.controlCharacterInString, at: self.index)
            }
            if byte >= 0x80 {
                isASCII = false
            }
            self.index += 1
        }
        guard self.index < self.bytes.count else {
            throw JSONParseError(.unexpectedEnd, at: self.index)
        }
        // Slow path: an escape was found; copy into a scratch buffer.
        var scratch: [UInt8] = []
        scratch.reserveCapacity(self.index - start + 16)
        var segmentStart = start
        var segmentIsASCII = isASCII
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            switch byte {
            case UInt8(ascii: "\""):
                try self.flushSegment(from: segmentStart, isASCII: segmentIsASCII, into: &scratch)
                self.index += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try self.flushSegment(from: segmentStart, isASCII: segmentIsASCII, into: &scratch)
                try self.parseEscape(into: &scratch)
                segmentStart = self.index
                segmentIsASCII = true
            case 0..<0x20:
                throw JSONParseError(.controlCharacterInString, at: self.index)
            default:
                if byte >= 0x80 {
                    segmentIsASCII = false
                }
                self.index += 1
            }
        }
        throw JSONParseError(.unexpectedEnd, at: self.index)
    }

    private func flushSegment(from start: Int, isASCII: Bool, into scratch: inout [UInt8]) throws(JSONParseError) {
        guard start < self.index else { return }
        let segment = UnsafeBufferPointer(rebasing: self.bytes[start..<self.index])
        if !isASCII {
            try Self.validateUTF8(segment, baseOffset: start)
        }
        scratch.append(contentsOf: segment)
    }

    /// Parses an escape starting at its backslash.
    private mutating func parseEscape(into scratch: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = self.index
        self.index += 1
        guard self.index < self.bytes.count else {
            throw JSONParseError(.unexpectedEnd, at: self.index)
        }
        let byte = self.bytes[self.index]
        self.index += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): scratch.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let first = try self.parseHex4()
            var scalarValue = UInt32(first)
            if (0xD800...0xDBFF).contains(first) {
                // A high surrogate must be followed by `\u` + low surrogate.
                guard self.index + 1 < self.bytes.count,
                    self.bytes[self.index] == UInt8(ascii: "\\"),
                    self.bytes[self.index + 1] == UInt8(ascii: "u")
                else {
                    if self.index >= self.bytes.count {
                        throw JSONParseError(.unexpectedEnd, at: self.index)
                    }
                    throw JSONParseError(.loneSurrogate, at: escapeStart)
                }
                self.index += 2
                let second = try self.parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw JSONParseError(.loneSurrogate, at: escapeStart)
                }
                scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(first) {
                throw JSONParseError(.loneSurrogate, at: escapeStart)
            }
            Self.appendUTF8(scalarValue, to: &scratch)
        default:
            throw JSONParseError(.invalidEscape, at: escapeStart)
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard self.index < self.bytes.count else {
                throw JSONParseError(.unexpectedEnd, at: self.index)
            }
            let byte = self.bytes[self.index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw JSONParseError(.invalidUnicodeEscape, at: self.index)
            }
            value = value << 4 | UInt16(digit)
            self.index += 1
        }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            buffer.append(UInt8(scalar))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | (scalar >> 6)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | (scalar >> 12)))
            buffer.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            buffer.append(UInt8(0xF0 | (scalar >> 18)))
            buffer.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            buffer.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Checks RFC 3629 well-formedness (no overlongs, no surrogates, nothing above U+10FFFF).
    static func validateUTF8(_ bytes: UnsafeBufferPointer<UInt8>, baseOffset: Int) throws(JSONParseError) {
        if let offset = UTF8Validator.firstInvalidOffset(in: bytes) {
            throw JSONParseError(.invalidUTF8, at: baseOffset + offset)
        }
    }

    // MARK: Numbers

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = self.index
        var isNegative = false
        if self.bytes[self.index] == UInt8(ascii: "-") {
            isNegative = true
            self.index += 1
        }
        guard self.index < self.bytes.count else {
            throw JSONParseError(.unexpectedEnd, at: self.index)
        }
        // Integer part: 0 | [1-9][0-9]*
        var magnitude: UInt64 = 0
        var overflow = false
        let first = self.bytes[self.index]
        if first == UInt8(ascii: "0") {
            self.index += 1
            if self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) {
                throw JSONParseError(.invalidNumber, at: self.index)
            }
        } else if Self.isDigit(first) {
            while self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) {
                let digit = UInt64(self.bytes[self.index] &- UInt8(ascii: "0"))
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(digit)
                if o1 || o2 { overflow = true }
                magnitude = sum
                self.index += 1
            }
        } else {
            throw JSONParseError(.invalidNumber, at: self.index)
        }
        var isInteger = true
        // Fraction
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ".") {
            isInteger = false
            self.index += 1
            let digitsStart = self.index
            while self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) {
                self.index += 1
            }
            guard self.index > digitsStart else {
                if self.index >= self.bytes.count { throw JSONParseError(.unexpectedEnd, at: self.index) }
                throw JSONParseError(.invalidNumber, at: self.index)
            }
        }
        // Exponent
        if self.index < self.bytes.count,
            self.bytes[self.index] == UInt8(ascii: "e") || self.bytes[self.index] == UInt8(ascii: "E")
        {
            isInteger = false
            self.index += 1
            if self.index < self.bytes.count,
                self.bytes[self.index] == UInt8(ascii: "+") || self.bytes[self.index] == UInt8(ascii: "-")
            {
                self.index += 1
            }
            let digitsStart = self.index
            while self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) {
                self.index += 1
            }
            guard self.index > digitsStart else {
                if self.index >= self.bytes.count { throw JSONParseError(.unexpectedEnd, at: self.index) }
                throw JSONParseError(.invalidNumber, at: self.index)
            }
        }
        if isInteger && !overflow {
            if isNegative {
                if magnitude <= UInt64(Int.max) {
                    return .int(-Int(magnitude))
                } else if magnitude == UInt64(Int.max) + 1 {
                    return .int(Int.min)
                }
            } else if magnitude <= UInt64(Int.max) {
                return .int(Int(magnitude))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
        guard let double = Double(text) else {
            throw JSONParseError(.invalidNumber, at: start)
        }
        return .double(double)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
