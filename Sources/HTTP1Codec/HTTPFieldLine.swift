import RealtimeEncoding

/// Parsing of one `field-name ":" OWS field-value OWS` line (RFC 9112 §5, RFC 9110 §5.5).
enum HTTPFieldLine {
    static func parse(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        let (nameEnd, valueStart, valueEnd) = try self.locate(line)
        return (self.decode(line[line.startIndex..<nameEnd]), self.decode(line[valueStart..<valueEnd]))
    }

    /// Checks a line's syntax without building strings (used for trailers, which are dropped).
    static func validate(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        _ = try self.locate(line)
    }

    private static func locate(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (Int, Int, Int) {
        guard let first = line.first else {
            throw HTTPParseError(.invalidHeader, "empty field line")
        }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            throw HTTPParseError(.invalidHeader, "obsolete line folding is not accepted (RFC 9112 §5.2)")
        }
        var index = line.startIndex
        while index < line.endIndex, line[index] != UInt8(ascii: ":") {
            guard self.isTokenCharacter(line[index]) else {
                throw HTTPParseError(.invalidHeader, "invalid character in a field name")
            }
            index += 1
        }
        guard index < line.endIndex, index > line.startIndex else {
            throw HTTPParseError(.invalidHeader, "a field line has no name or no colon")
        }
        let nameEnd = index
        var valueStart = index + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd, self.isWhitespace(line[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, self.isWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
        for byte in line[valueStart..<valueEnd] where self.isForbiddenInValue(byte) {
            throw HTTPParseError(.invalidHeader, "control character in a field value")
        }
        return (nameEnd, valueStart, valueEnd)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// CTLs other than HTAB, and DEL (RFC 9110 §5.5).
    static func isForbiddenInValue(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }

    /// `tchar` (RFC 9110 §5.6.2).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// UTF-8 when valid, else ISO-8859-1 (the historical field encoding, RFC 9110 §5.5).
    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        if let string = String(validatingUTF8Bytes: bytes) { return string }
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }
}
