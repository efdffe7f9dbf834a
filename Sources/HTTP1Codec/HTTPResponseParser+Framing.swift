/// Body framing rules of RFC 9112 §6 and §7.1, as pure functions.
extension HTTPResponseParser {
    static let headersTooLarge = HTTPParseError(.headersTooLarge, "the response head is too large")
    static let chunkLineTooLong = HTTPParseError(.invalidChunk, "a chunk-size line is too long")
    static let truncatedChunkedBody = HTTPParseError(.truncatedBody, "connection closed inside a chunked body")
    static let missingChunkTerminator = HTTPParseError(.invalidChunk, "chunk data is not followed by CRLF")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The length every `Content-Length` field of `headers` states: each value, possibly a
    /// comma-separated list, must be the same non-negative integer (RFC 9110 §8.6, RFC 9112
    /// §6.3 (5)). Read in place: no array of values or of list elements.
    static func contentLength(in headers: HTTPHeaders) throws(HTTPParseError) -> Int {
        var result: Int?
        for field in headers where HTTPHeaders.namesEqual(field.name, "Content-Length") {
            try field.value.forEachHTTPListElement(keepingEmpty: true) { element throws(HTTPParseError) in
                let digits = element.utf8
                guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(Self.isDigit) else {
                    throw HTTPParseError(.invalidContentLength, "Content-Length is not a non-negative integer")
                }
                var length = 0
                for digit in digits { length = length * 10 + Int(digit - UInt8(ascii: "0")) }
                if let previous = result, previous != length {
                    throw HTTPParseError(.invalidContentLength, "conflicting Content-Length values")
                }
                result = length
            }
        }
        guard let result else {
            throw HTTPParseError(.invalidContentLength, "empty Content-Length")
        }
        return result
    }

    /// Whether the last coding of the last `Transfer-Encoding` field of `headers` is `chunked`.
    static func lastCodingIsChunked(in headers: HTTPHeaders) -> Bool {
        var last: String?
        for field in headers where HTTPHeaders.namesEqual(field.name, "Transfer-Encoding") { last = field.value }
        var lastCoding: Substring?
        last?.forEachHTTPListElement(keepingEmpty: false) { lastCoding = $0 }
        guard let lastCoding else { return false }
        return lastCoding.utf8.elementsEqual("chunked".utf8, by: { HTTPHeaders.asciiLowercased($0) == $1 })
    }

    /// `chunk-size [ BWS chunk-ext ]` (RFC 9112 §7.1, §7.1.1); extensions are ignored.
    static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let value = Self.hexValue(line[index]) {
            guard size <= (Int.max >> 4) else {
                throw HTTPParseError(.invalidChunk, "chunk size is too large")
            }
            size = size << 4 | value
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw HTTPParseError(.invalidChunk, "chunk size is not hexadecimal") }
        while index < line.endIndex, line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t") {
            index += 1
        }
        if index < line.endIndex {
            guard line[index] == UInt8(ascii: ";") else {
                throw HTTPParseError(.invalidChunk, "unexpected byte after the chunk size")
            }
            for byte in line[index...] where HTTPFieldLine.isForbiddenInValue(byte) {
                throw HTTPParseError(.invalidChunk, "control character in a chunk extension")
            }
        }
        return size
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
