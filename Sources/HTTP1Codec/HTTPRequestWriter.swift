/// Serializes HTTP/1.1 requests (RFC 9112 §3, §6).
///
/// ```swift
/// let bytes = HTTPRequestWriter.serialize(method: "GET", target: "/chat?room=1",
///                                         headers: ["Host": "example.com"], body: nil)
/// ```
///
/// The writer frames the body: when `body` is given and `headers` carry neither
/// `Content-Length` nor `Transfer-Encoding`, it adds `Content-Length` (also `0` for an empty
/// POST, PUT or PATCH, as RFC 9110 §8.6 asks). It does not add `Host`: the caller knows the
/// authority.
///
/// It never lets a field or the target break the message framing: CR, LF and NUL in
/// field values become spaces, invalid name characters become `-`, and bytes in the target
/// that cannot appear in a request line are percent-encoded.
package enum HTTPRequestWriter {
    /// The request line, the fields and the body as bytes ready to write.
    package static func serialize(
        method: String, target: String, headers: HTTPHeaders,
        body: [UInt8]?
    ) -> [UInt8] {
        var output = Self.serializeHead(
            method: method, target: target, headers: headers, bodyLength: body?.count, reserving: body?.count ?? 0)
        if let body { output.append(contentsOf: body) }
        return output
    }

    /// The head of a request whose body of `bodyLength` bytes (`nil`: none) is written after
    /// it on its own, so a large body is not copied behind its head: the same framing as
    /// ``serialize(method:target:headers:body:)``.
    package static func serializeHead(
        method: String, target: String, headers: HTTPHeaders, bodyLength: Int?
    ) -> [UInt8] {
        Self.serializeHead(method: method, target: target, headers: headers, bodyLength: bodyLength, reserving: 0)
    }

    private static func serializeHead(
        method: String, target: String, headers: HTTPHeaders, bodyLength: Int?, reserving extra: Int
    ) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64 + target.utf8.count + headers.count * 32 + extra)
        Self.appendToken(method, to: &output)
        output.append(UInt8(ascii: " "))
        Self.appendTarget(target, to: &output)
        output.append(contentsOf: " HTTP/1.1\r\n".utf8)
        for (name, value) in headers {
            Self.appendField(name: name, value: value, to: &output)
        }
        let framed = headers.contains(name: "Content-Length") || headers.contains(name: "Transfer-Encoding")
        if !framed {
            if let bodyLength {
                Self.appendField(name: "Content-Length", value: String(bodyLength), to: &output)
            } else if method == "POST" || method == "PUT" || method == "PATCH" {
                Self.appendField(name: "Content-Length", value: "0", to: &output)
            }
        }
        output.append(contentsOf: "\r\n".utf8)
        return output
    }

    /// The head alone (no body framing added).
    package static func serialize(_ head: HTTPRequestHead) -> [UInt8] {
        self.serialize(method: head.method, target: head.target, headers: head.headers, body: nil)
    }

    // Each part is copied whole when it needs no replacement (the usual case), and byte by
    // byte only when it does: an append per byte checks the array's uniqueness each time.

    private static func appendField(name: String, value: String, to output: inout [UInt8]) {
        Self.appendToken(name, to: &output)
        output.append(contentsOf: ": ".utf8)
        if Self.anyByte(of: value, where: Self.breaksFieldLine) {
            for byte in value.utf8 {
                output.append(Self.breaksFieldLine(byte) ? UInt8(ascii: " ") : byte)
            }
        } else {
            output.append(contentsOf: value.utf8)
        }
        output.append(contentsOf: "\r\n".utf8)
    }

    /// Whether a byte of `string` is one `predicate` picks: a native string's bytes read in
    /// place (its `UTF8View` iterated byte by byte costs several times as much).
    private static func anyByte(of string: String, where predicate: (UInt8) -> Bool) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { $0.contains(where: predicate) } ?? string.utf8.contains(where: predicate)
    }

    /// CR, LF and NUL: a field value with one could end the line or the head early.
    private static func breaksFieldLine(_ byte: UInt8) -> Bool {
        byte == 0x0D || byte == 0x0A || byte == 0x00
    }

    private static func appendToken(_ token: String, to output: inout [UInt8]) {
        if !Self.anyByte(of: token, where: { !HTTPFieldLine.isTokenCharacter($0) }) {
            output.append(contentsOf: token.utf8)
            return
        }
        for byte in token.utf8 {
            output.append(HTTPFieldLine.isTokenCharacter(byte) ? byte : UInt8(ascii: "-"))
        }
    }

    private static func appendTarget(_ target: String, to output: inout [UInt8]) {
        if target.isEmpty {
            output.append(UInt8(ascii: "/"))
            return
        }
        guard Self.anyByte(of: target, where: Self.needsPercentEncodingInTarget) else {
            output.append(contentsOf: target.utf8)
            return
        }
        for byte in target.utf8 {
            if Self.needsPercentEncodingInTarget(byte) {
                output.append(UInt8(ascii: "%"))
                output.append(Self.hexDigit(byte >> 4))
                output.append(Self.hexDigit(byte & 0x0F))
            } else {
                output.append(byte)
            }
        }
    }

    /// A byte that cannot appear in a request line's target as it is: controls, space, DEL,
    /// non-ASCII and the delimiters RFC 3986 leaves out of URIs.
    private static func needsPercentEncodingInTarget(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "^")
            || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "|")
            || byte == UInt8(ascii: "}")
    }

    /// The uppercase hexadecimal digit of `nibble` (0 to 15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
