import Foundation
import RealtimeHTTP
import RealtimeIO
import Testing
import WebSocketCodec

/// ``WebSocketClientConnection/send(contentsOf:)``: a batch of messages goes out as whole
/// frames, in order, in one write.
@Suite struct WebSocketBatchSendTests {
    /// Decodes `bytes` as client frames; fails if anything is left over (a torn frame).
    static func frames(in bytes: [UInt8], allowsRSV1: Bool = false) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: .server, allowsRSV1: allowsRSV1)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        #expect(decoder.bufferedByteCount == 0)
        return frames
    }

    /// A masked client frame's size on the wire (RFC 6455 §5.2).
    static func wireSize(payload count: Int) -> Int {
        let length = count <= 125 ? 0 : count <= 0xFFFF ? 2 : 8
        return 2 + length + 4 + count
    }

    @Test func batchIsOneWriteOfTheFramesInOrder() async throws {
        let (connection, server) = try await WebSocketConnectionTests.connected()
        let messages: [WebSocketMessage] = [
            .text("42[\"a\"]"), .binary([1, 2, 3]), .text("héllo"), .binary([UInt8](repeating: 7, count: 300)),
            .text(String(repeating: "x", count: 70_000)), .text(""),
        ]
        let writesBefore = server.stream.peerWrites.count
        try await connection.send(contentsOf: messages)
        let writes = Array(server.stream.peerWrites.dropFirst(writesBefore))
        try #require(writes.count == 1)
        let expectedSize = messages.reduce(0) { size, message in
            switch message {
            case .text(let text): size + Self.wireSize(payload: text.utf8.count)
            case .binary(let bytes): size + Self.wireSize(payload: bytes.count)
            }
        }
        #expect(writes[0].count == expectedSize)
        let frames = try Self.frames(in: writes[0])
        let expected = messages.map { message in
            switch message {
            case .text(let text): WebSocketFrame(opcode: .text, payload: Array(text.utf8))
            case .binary(let bytes): WebSocketFrame(opcode: .binary, payload: bytes)
            }
        }
        #expect(frames == expected)
    }

    @Test func emptyBatchWritesNothing() async throws {
        let (connection, server) = try await WebSocketConnectionTests.connected()
        let writesBefore = server.stream.peerWrites.count
        try await connection.send(contentsOf: [])
        #expect(server.stream.peerWrites.count == writesBefore)
    }

    @Test func batchAfterCloseFails() async throws {
        let (client, serverEnd) = try await WebSocketConnectionTests.connected()
        var server = serverEnd
        let closing = Task { await client.close(code: 1000, reason: "") }
        let close = try #require(try await server.nextFrame())
        #expect(close.opcode == .close)
        try await server.send(.close, close.payload)
        await closing.value
        #expect(await webSocketErrorKind { try await client.send(contentsOf: [.text("late")]) } != nil)
    }

    @Test func automaticPongNeverLandsInsideABatch() async throws {
        var (connection, server) = try await WebSocketConnectionTests.connected()
        let payloads = (0..<20).map { batch in
            (0..<10).map { index in [UInt8](repeating: UInt8(batch), count: 500 + index * 211) }
        }
        let client = connection
        // The reader answers pings while the batches are being written.
        let receiving = Task { try await client.receive() }
        let sending = Task {
            for batch in payloads { try await client.send(contentsOf: batch.map { .binary($0) }) }
        }
        for index in 0..<5 {
            try await server.send(.ping, [UInt8(index)])
            await Task.yield()
        }
        try await sending.value
        var data: [[UInt8]] = []
        var pongs: [[UInt8]] = []
        while data.count < payloads.count * 10 || pongs.count < 5 {
            let frame = try #require(try await server.nextFrame())
            switch frame.opcode {
            case .binary: data.append(frame.payload)
            case .pong: pongs.append(frame.payload)
            default: Issue.record("unexpected \(frame.opcode)")
            }
        }
        #expect(data == payloads.flatMap { $0 })
        #expect(pongs == (0..<5).map { [UInt8($0)] })
        // Every write is whole frames: a pong goes between writes, never inside one.
        for write in server.stream.peerWrites where !write.starts(with: Array("GET ".utf8)) {
            _ = try Self.frames(in: write)
        }
        receiving.cancel()
        _ = try? await receiving.value
    }

    @Test func compressedBatchInflatesInOrder() async throws {
        let (connection, server) = try await WebSocketConnectionTests.connected(
            options: WebSocketOptions(enableCompression: true),
            extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate\r\n")
        let messages = (0..<30).map { index in "42[\"chat\",{\"n\":\(index),\"text\":\"\(String(repeating: "hello ", count: index))\"}]" }
        let writesBefore = server.stream.peerWrites.count
        try await connection.send(contentsOf: messages.map { .text($0) })
        try await connection.send(contentsOf: messages.reversed().map { .text($0) })
        let writes = Array(server.stream.peerWrites.dropFirst(writesBefore))
        try #require(writes.count == 2)
        // The server keeps its context across messages (no client_no_context_takeover).
        let inflater = try #require(PerMessageDeflateDecompressor(noContextTakeover: false))
        var received: [String] = []
        var wireBytes = 0
        for write in writes {
            for frame in try Self.frames(in: write, allowsRSV1: true) {
                #expect(frame.opcode == .text && frame.rsv1 && frame.fin)
                wireBytes += frame.payload.count
                var output: [UInt8] = []
                try inflater.decompress(frame.payload, into: &output, limit: 1 << 20)
                try inflater.finishMessage(into: &output, limit: 1 << 20)
                received.append(String(decoding: output, as: UTF8.self))
            }
        }
        #expect(received == messages + messages.reversed())
        #expect(wireBytes < (messages + messages).reduce(0) { $0 + $1.utf8.count } / 2)
    }
}
