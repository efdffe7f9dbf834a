import Testing
import WebSocketCodec

@Suite struct WebSocketFrameDecoderTests {
    // MARK: RFC 6455 §5.7 examples

    @Test func singleFrameUnmaskedText() {
        let bytes: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        #expect(
            DecoderFeeding.decodeAllWays(bytes) == [
                .success([
                    WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
                ])
            ])
    }

    @Test func singleFrameMaskedTextDecodedByServer() {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(
            DecoderFeeding.decodeAllWays(bytes, role: .server) == [
                .success([
                    WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
                ])
            ])
    }

    @Test func fragmentedUnmaskedText() {
        let bytes: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f]
        #expect(
            DecoderFeeding.decodeAllWays(bytes) == [
                .success([
                    WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
                    WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
                ])
            ])
    }

    @Test func pingAndMaskedPong() {
        let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        #expect(
            DecoderFeeding.decodeAllWays(ping) == [
                .success([
                    WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8))
                ])
            ])
        let pong: [UInt8] = [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        #expect(
            DecoderFeeding.decodeAllWays(pong, role: .server) == [
                .success([
                    WebSocketFrame(opcode: .pong, payload: Array("Hello".utf8))
                ])
            ])
    }

    @Test func binary256Bytes16BitLength() {
        let payload = (0..<256).map { UInt8(truncatingIfNeeded: $0 * 31) }
        let bytes: [UInt8] = [0x82, 0x7E, 0x01, 0x00] + payload
        #expect(
            DecoderFeeding.decodeAllWays(bytes) == [
                .success([
                    WebSocketFrame(opcode: .binary, payload: payload)
                ])
            ])
    }

    @Test func binary64KiB64BitLength() {
        let payload = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let bytes: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00] + payload
        // Every offset inside the header, then a spread through the payload.
        let offsets = Array(0...16) + [100, 4096, 32768, 65535, bytes.count - 1, bytes.count]
        #expect(
            DecoderFeeding.decodeAllWays(bytes, offsets: offsets) == [
                .success([
                    WebSocketFrame(opcode: .binary, payload: payload)
                ])
            ])
    }

    @Test func emptyPayloadsAndSeveralFramesInOneChunk() {
        let bytes: [UInt8] = [0x81, 0x00, 0x89, 0x00, 0x82, 0x02, 0xAA, 0xBB, 0x88, 0x02, 0x03, 0xE8]
        #expect(
            DecoderFeeding.decodeAllWays(bytes) == [
                .success([
                    WebSocketFrame(opcode: .text, payload: []),
                    WebSocketFrame(opcode: .ping, payload: []),
                    WebSocketFrame(opcode: .binary, payload: [0xAA, 0xBB]),
                    WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]),
                ])
            ])
    }

    @Test func rsv1AcceptedOnlyWhenAllowed() {
        let bytes: [UInt8] = [0xC1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]
        #expect(
            DecoderFeeding.decodeAllWays(bytes, allowsRSV1: true) == [
                .success([
                    WebSocketFrame(rsv1: true, opcode: .text, payload: [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
                ])
            ])
        #expect(Self.closeCodes(DecoderFeeding.decodeAllWays(bytes)) == [1002])
    }

    // MARK: Bad frames

    static let badFrames: [(name: String, bytes: [UInt8])] = [
        ("reserved data opcode 0x3", [0x83, 0x00]),
        ("reserved control opcode 0xB", [0x8B, 0x00]),
        ("RSV2", [0xA1, 0x00]),
        ("RSV3", [0x91, 0x00]),
        ("fragmented ping", [0x09, 0x00]),
        ("close with 126-byte length", [0x88, 0x7E, 0x00, 0x7E]),
        ("ping with 7-bit length 126", [0x89, 0x7E]),
        ("masked frame from a server", [0x81, 0x81, 1, 2, 3, 4, 0x41]),
        ("64-bit length with the top bit set", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1]),
    ]

    @Test(arguments: 0..<badFrames.count)
    func badFrameIsProtocolError(_ index: Int) {
        let bad = Self.badFrames[index]
        // A valid frame first: it must come out, then the error.
        let bytes: [UInt8] = [0x81, 0x01, 0x41] + bad.bytes + [0x81, 0x01, 0x42]
        let results = DecoderFeeding.decodeAllWays(bytes)
        #expect(Self.closeCodes(results) == [1002], "\(bad.name)")
    }

    @Test func unmaskedFrameRejectedByServerRole() {
        #expect(Self.closeCodes(DecoderFeeding.decodeAllWays([0x81, 0x01, 0x41], role: .server)) == [1002])
    }

    @Test func oversizeFrameRejectedFromHeaderAlone() {
        // Only the header: the decoder must fail before any payload arrives (nothing allocated).
        let header16: [UInt8] = [0x82, 0x7E, 0x04, 0x01]  // 1025 bytes
        let header64: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF]  // ~512 GiB
        for header in [header16, header64] {
            #expect(Self.closeCodes(DecoderFeeding.decodeAllWays(header, maxFramePayloadSize: 1024)) == [1009])
        }
        let atLimit: [UInt8] = [0x82, 0x7E, 0x04, 0x00] + [UInt8](repeating: 9, count: 1024)
        #expect(
            DecoderFeeding.decode([atLimit], maxFramePayloadSize: 1024)
                == .success([WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 9, count: 1024))]))
    }

    @Test func failedDecoderKeepsFailing() throws {
        var decoder = WebSocketFrameDecoder()
        decoder.append([0x83, 0x00])
        #expect(throws: WebSocketProtocolError.self) { try decoder.nextFrame() }
        decoder.append([0x81, 0x01, 0x41])
        #expect(throws: WebSocketProtocolError.self) { try decoder.nextFrame() }
    }

    @Test func needsMoreOnShortInput() throws {
        var decoder = WebSocketFrameDecoder()
        decoder.append([0x82])
        #expect(try decoder.nextFrame() == nil)
        decoder.append([0x7E, 0x01])
        #expect(try decoder.nextFrame() == nil)
        decoder.append([0x00, 1, 2])
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 2)
    }

    static func closeCodes(_ results: [Result<[WebSocketFrame], WebSocketProtocolError>]) -> [UInt16] {
        results.map { result -> UInt16 in
            switch result {
            case .success: return 0
            case .failure(let error): return error.closeCode
            }
        }
    }
}
