import RealtimeIO
import WebSocketCodec

/// The server end of an in-memory connection, written with the codec: answers the
/// handshake, then lets a test send raw frames and read the client's frames.
struct WebSocketScriptedServer {
    let stream: WebSocketMemoryStream
    var decoder = WebSocketFrameDecoder(role: .server)
    private(set) var requestHead = ""

    init(stream: WebSocketMemoryStream) {
        self.stream = stream
    }

    /// Reads the upgrade request and answers 101 with the right accept key (plus `extra`).
    mutating func acceptHandshake(extraHeaders: String = "") async throws {
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let bytes = try await self.stream.read(maxLength: 1)
            guard !bytes.isEmpty else { throw NetworkError(.closed, "EOF in request") }
            head += bytes
        }
        self.requestHead = String(decoding: head, as: UTF8.self)
        let key =
            self.requestHead.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { String($0.dropFirst("sec-websocket-key:".count)).webSocketTestTrimmed() } ?? ""
        let response =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n\(extraHeaders)\r\n"
        try await self.stream.write(Array(response.utf8))
    }

    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) async throws {
        try await self.stream.write(WebSocketFrameEncoder.encode(opcode: opcode, payload: payload, fin: fin, maskingKey: nil))
    }

    /// The next frame from the client, or `nil` at EOF.
    mutating func nextFrame() async throws -> WebSocketFrame? {
        while true {
            if let frame = try self.decoder.nextFrame() { return frame }
            let bytes: [UInt8]
            do {
                bytes = try await self.stream.read(maxLength: 4096)
            } catch {
                return nil
            }
            if bytes.isEmpty { return nil }
            self.decoder.append(bytes)
        }
    }
}

extension String {
    func webSocketTestTrimmed() -> String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
