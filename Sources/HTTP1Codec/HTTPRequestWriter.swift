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

    private static func appendField(name: String, value: String, to output: inout [UInt8]) {
        Self.appendToken(name, to: &output)
        output.append(contentsOf: ": ".utf8)
        for byte in value.utf8 {
            output.append(byte == 0x0D || byte == 0x0A || byte == 0x00 ? UInt8(ascii: " ") : byte)
        }
        output.append(contentsOf: "\r\n".utf8)
    }

    private static func appendToken(_ token: String, to output: inout [UInt8]) {
        for byte in token.utf8 {
            output.append(HTTPFieldLine.isTokenCharacter(byte) ? byte : UInt8(ascii: "-"))
        }
    }

    private static func appendTarget(_ target: String, to output: inout [UInt8]) {
        if target.isEmpty {
            output.append(UInt8(ascii: "/"))
            return
        }
        let hexDigits = Array("0123456789ABCDEF".utf8)
        for byte in target.utf8 {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<")
                || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "^")
                || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "|")
                || byte == UInt8(ascii: "}")
            {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            } else {
                output.append(byte)
            }
        }
    }
}
