import RealtimeEncoding
import Testing
import WebSocketCodec

@Suite struct WebSocketFrameEncoderTests {
    static let rfcKey = WebSocketMaskingKey(0x37, 0xfa, 0x21, 0x3d)

    @Test func rfcMaskedHello() {
        #expect(
            WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hello".utf8), maskingKey: Self.rfcKey)
                == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
    }

    @Test func rfcUnmaskedFragmentsAndPing() {
        #expect(
            WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hel".utf8), fin: false, maskingKey: nil)
                == [0x01, 0x03, 0x48, 0x65, 0x6c])
        #expect(
            WebSocketFrameEncoder.encode(opcode: .continuation, payload: Array("lo".utf8), maskingKey: nil)
                == [0x80, 0x02, 0x6c, 0x6f])
        #expect(
            WebSocketFrameEncoder.encode(opcode: .ping, payload: Array("Hello".utf8), maskingKey: nil)
                == [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 70000])
    func lengthEncodingsRoundTrip(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let key = WebSocketMaskingKey(0xde, 0xad, 0xbe, 0xef)
        let bytes = WebSocketFrameEncoder.encode(opcode: .binary, payload: payload, maskingKey: key)
        #expect(bytes.count == WebSocketFrameEncoder.headerSize(payloadLength: length, masked: true) + length)
        let expectedLengthByte: UInt8 = length <= 125 ? UInt8(length) : (length <= 65535 ? 126 : 127)
        #expect(bytes[1] == 0x80 | expectedLengthByte)
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append(bytes)
        let frame = try #require(try decoder.nextFrame())
        #expect(frame == WebSocketFrame(opcode: .binary, payload: payload))
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func unmaskedServerFrameRoundTrips() throws {
        let bytes = WebSocketFrameEncoder.encode(opcode: .binary, payload: [1, 2, 3], rsv1: true, maskingKey: nil)
        #expect(bytes == [0xC2, 0x03, 1, 2, 3])
    }

    @Test func maskingMatchesByteByByteDefinition() {
        let key = WebSocketMaskingKey(0x01, 0x80, 0xfe, 0x7f)
        for length in 0..<40 {
            for phase in 0..<4 {
                let original = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 5) }
                var masked = original
                masked.withUnsafeMutableBytes { key.apply(to: $0, phase: phase) }
                let expected = original.enumerated().map { $0.element ^ key[$0.offset + phase] }
                #expect(masked == expected, "length \(length) phase \(phase)")
            }
        }
    }

    @Test func closePayloadTruncatesReasonAtCharacterBoundary() {
        #expect(WebSocketFrameEncoder.closePayload(code: 1000, reason: "bye") == [0x03, 0xE8, 0x62, 0x79, 0x65])
        let long = String(repeating: "é", count: 100)  // 200 bytes
        let payload = WebSocketFrameEncoder.closePayload(code: 4000, reason: long)
        #expect(payload.count == 2 + 122)
        #expect(UTF8Validator.isValid(Array(payload[2...])))
    }
}
