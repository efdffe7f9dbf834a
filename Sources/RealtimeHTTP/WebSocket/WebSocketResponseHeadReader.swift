import HTTP1Codec

/// Reads the HTTP/1.1 response head of the upgrade (RFC 9112 §4, §5) out of the first bytes
/// the server sends; anything after the head belongs to the WebSocket.
///
/// Bounded: a head over ``maxHeadSize`` bytes is an error, not a growing buffer.
struct WebSocketResponseHeadReader: Sendable {
    static let maxHeadSize = 16 * 1024
    private var buffer: [UInt8] = []
    private var scanFrom = 0

    enum Outcome: Sendable {
        case needMore
        case head(WebSocketHandshakeResponse, remaining: [UInt8])
    }

    mutating func append(_ bytes: [UInt8]) throws(WebSocketError) -> Outcome {
        self.buffer.append(contentsOf: bytes)
        guard let end = self.findHeadEnd() else {
            guard self.buffer.count <= Self.maxHeadSize else {
                throw WebSocketError(.handshakeFailed(status: 0), "response head over \(Self.maxHeadSize) bytes")
            }
            return .needMore
        }
        let response = try Self.parse(self.buffer[..<end])
        return .head(response, remaining: Array(self.buffer[(end + 4)...]))
    }

    private mutating func findHeadEnd() -> Int? {
        let bytes = self.buffer
        var index = max(0, self.scanFrom - 3)
        while index + 4 <= bytes.count {
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        self.scanFrom = bytes.count
        return nil
    }

    private static func parse(_ head: ArraySlice<UInt8>) throws(WebSocketError) -> WebSocketHandshakeResponse {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
        guard let statusLine = lines.next() else {
            throw WebSocketError(.handshakeFailed(status: 0), "empty response")
        }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status) else {
            throw WebSocketError(.handshakeFailed(status: 0), "malformed status line")
        }
        var headers = HTTPHeaders()
        while let line = lines.next() {
            guard !line.isEmpty else { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw WebSocketError(.handshakeFailed(status: status), "malformed header line")
            }
            let name = String(line[..<colon])
            var value = line[line.index(after: colon)...]
            while let first = value.first, first == " " || first == "\t" { value.removeFirst() }
            while let last = value.last, last == " " || last == "\t" { value.removeLast() }
            headers.add(name: name, value: String(value))
        }
        return WebSocketHandshakeResponse(status: status, headers: headers)
    }
}
