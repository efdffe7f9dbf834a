import TestSupport
import Testing

@testable import EngineIOProtocol

/// Vectors from engine.io-protocol v4, "Packet encoding".
@Suite struct EnginePacketCodecTests {
    // MARK: WebSocket

    @Test(arguments: [
        (EnginePacket.message("hello"), EngineWebSocketFrame.text("4hello")),
        (.ping("probe"), .text("2probe")),
        (.pong("probe"), .text("3probe")),
        (.ping(""), .text("2")),
        (.pong(""), .text("3")),
        (.upgrade, .text("5")),
        (.close, .text("1")),
        (.noop, .text("6")),
        (.open(#"{"sid":"x"}"#), .text(#"0{"sid":"x"}"#)),
        (.message("€ 😀"), .text("4€ 😀")),
        (.message(""), .text("4")),
        (.binaryMessage([1, 2, 3, 4]), .binary([1, 2, 3, 4])),
        (.binaryMessage([]), .binary([])),
    ])
    func webSocketFramesRoundTrip(packet: EnginePacket, frame: EngineWebSocketFrame) throws {
        #expect(packet.webSocketFrame() == frame)
        #expect(try EnginePacket(webSocketFrame: frame) == packet)
    }

    @Test func webSocketTextKeepsCombiningMarksAfterTheTypeDigit() throws {
        // "4" followed by a combining acute accent forms one Character; the data must keep it.
        #expect(try EnginePacket(webSocketText: "4\u{301}x") == .message("\u{301}x"))
    }

    @Test func webSocketDataOnControlPacketsIsDropped() throws {
        #expect(try EnginePacket(webSocketText: "6junk") == .noop)
        #expect(try EnginePacket(webSocketText: "1") == .close)
    }

    @Test(arguments: [
        ("", EngineProtocolError.emptyPacket),
        ("7", .unknownPacketType(UInt8(ascii: "7"))),
        ("x4", .unknownPacketType(UInt8(ascii: "x"))),
        ("/", .unknownPacketType(UInt8(ascii: "/"))),
        ("€", .unknownPacketType(0xE2)),
    ])
    func malformedWebSocketTextIsRejected(text: String, error: EngineProtocolError) {
        #expect(throws: error) { try EnginePacket(webSocketText: text) }
    }

    // MARK: Polling

    static let pollingVectors: [(String, [EnginePacket])] = [
        ("4hello\u{1E}2\u{1E}4world", [.message("hello"), .ping(""), .message("world")]),
        ("4hello\u{1E}bAQIDBA==", [.message("hello"), .binaryMessage([1, 2, 3, 4])]),
        (#"42["hello"]"# + "\u{1E}" + #"42["world"]"#, [.message(#"2["hello"]"#), .message(#"2["world"]"#)]),
        (
            #"0{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000,"maxPayload":1000000}"#,
            [.open(#"{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000,"maxPayload":1000000}"#)]
        ),
        ("6", [.noop]),
        (
            "4€\u{1E}4😀\u{1E}3probe\u{1E}b\u{1E}bAQ==\u{1E}bAQI=",
            [
                .message("€"), .message("😀"), .pong("probe"), .binaryMessage([]), .binaryMessage([1]), .binaryMessage([1, 2]),
            ]
        ),
        ("", []),
    ]

    @Test(arguments: Self.pollingVectors)
    func pollingPayloadsDecodeWholeByteByByteAndSplitAtEveryOffset(body: String, packets: [EnginePacket]) throws {
        let bytes = Array(body.utf8)
        #expect(try EnginePollingPayload.decode(bytes) == packets)

        var byteByByte = PollingPayloadDecoder()
        var decoded: [EnginePacket] = []
        for byte in bytes {
            decoded += try byteByByte.feed([byte])
        }
        decoded += try byteByByte.finish()
        #expect(decoded == packets)

        for offset in 0...bytes.count {
            var decoder = PollingPayloadDecoder()
            var split = try decoder.feed(bytes[..<offset])
            split += try decoder.feed(bytes[offset...])
            split += try decoder.finish()
            #expect(split == packets, "split at \(offset)")
        }
    }

    /// The client machine's records: the same packets, a text message as its record's own
    /// text (`4` kept, no copy to add it back), whole and split at every offset.
    @Test(arguments: Self.pollingVectors)
    func inboundRecordsKeepAMessagesOwnTextWholeAndSplit(body: String, packets: [EnginePacket]) throws {
        let expected = packets.map { packet -> EngineInboundPacket in
            if case .message(let message) = packet { return .message(EngineMessageText(packet: "4" + message)) }
            return .packet(packet)
        }
        let bytes = Array(body.utf8)
        let whole = try EnginePollingPayload.decode(bytes, maximumLength: 1 << 20, as: EngineInboundPacket.self)
        #expect(whole == expected)
        // Each message's packet is the record's text as it was in the body.
        let records = body.split(separator: "\u{1E}", omittingEmptySubsequences: false).map(String.init)
        for (record, packet) in zip(records, whole) {
            if case .message(let text) = packet { #expect(text.packet == record) }
        }
        for offset in 0...bytes.count {
            var reader = PollingRecordReader<EngineInboundPacket>()
            var split = try reader.feed(bytes[..<offset])
            split += try reader.finish(with: bytes[offset...])
            #expect(split == expected, "split at \(offset)")
        }
        // A message that is not UTF-8 is refused as the packet decoder refuses it.
        #expect(throws: EngineProtocolError.invalidUTF8) {
            try EnginePollingPayload.decode([0x34, 0xFF], maximumLength: 16, as: EngineInboundPacket.self)
        }
    }

    @Test(arguments: Self.pollingVectors)
    func pollingPayloadsEncodeToTheSpecText(body: String, packets: [EnginePacket]) {
        #expect(EnginePollingPayload.encode(packets) == Array(body.utf8))
    }

    static let malformedBodies: [([UInt8], EngineProtocolError)] = [
        (Array("\u{1E}".utf8), .emptyPacket),
        (Array("4a\u{1E}".utf8), .emptyPacket),
        (Array("4a\u{1E}\u{1E}4b".utf8), .emptyPacket),
        (Array("9".utf8), .unknownPacketType(UInt8(ascii: "9"))),
        (Array("4a\u{1E}x".utf8), .unknownPacketType(UInt8(ascii: "x"))),
        (Array("b!!!!".utf8), .invalidBase64),
        (Array("bAQ=".utf8), .invalidBase64),
        (Array("bA".utf8), .invalidBase64),
        (Array("bAR==".utf8), .invalidBase64),
        (Array("bA===".utf8), .invalidBase64),
        (Array("bAQ==\u{1E}4x".utf8).map { $0 == UInt8(ascii: "Q") ? UInt8(ascii: "=") : $0 }, .invalidBase64),
        ([UInt8(ascii: "4"), 0xFF], .invalidUTF8),
        ([UInt8(ascii: "4"), 0xE2, 0x82, 0x1E, UInt8(ascii: "2")], .invalidUTF8),
        ([UInt8(ascii: "4"), 0xED, 0xA0, 0x80], .invalidUTF8),
    ]

    @Test(arguments: Self.malformedBodies)
    func malformedPollingBodiesAreRejectedHoweverTheyAreSplit(body: [UInt8], error: EngineProtocolError) {
        #expect(throws: error) { try EnginePollingPayload.decode(body) }
        for offset in 0...body.count {
            #expect(throws: error, "split at \(offset)") {
                var decoder = PollingPayloadDecoder()
                _ = try decoder.feed(body[..<offset])
                _ = try decoder.feed(body[offset...])
                _ = try decoder.finish()
            }
        }
    }

    @Test func oversizedBodyIsRejectedBeforeBuffering() throws {
        var decoder = PollingPayloadDecoder(maximumLength: 10)
        #expect(try decoder.feed(Array("4abc\u{1E}4d".utf8)) == [.message("abc")])
        #expect(throws: EngineProtocolError.payloadTooLarge(limit: 10)) {
            try decoder.feed(Array("efgh".utf8))
        }
        #expect(throws: EngineProtocolError.payloadTooLarge(limit: 4)) {
            try EnginePollingPayload.decode(Array("4hello".utf8), maximumLength: 4)
        }
        // Exactly at the limit is fine.
        #expect(try EnginePollingPayload.decode(Array("4hell".utf8), maximumLength: 5) == [.message("hell")])
    }

    @Test func batchesRespectMaxPayload() {
        let packets: [EnginePacket] = [.message("aaaa"), .message("bbbb"), .message("cccc")]
        // Each record is 5 bytes, separators 1 byte: 5, 11, 17.
        #expect(EnginePollingPayload.batchCount(packets, maxPayload: nil) == 3)
        #expect(EnginePollingPayload.batchCount(packets, maxPayload: 17) == 3)
        #expect(EnginePollingPayload.batchCount(packets, maxPayload: 16) == 2)
        #expect(EnginePollingPayload.batchCount(packets, maxPayload: 11) == 2)
        #expect(EnginePollingPayload.batchCount(packets, maxPayload: 10) == 1)
        // A packet larger than the limit still goes alone.
        #expect(EnginePollingPayload.batchCount(packets, maxPayload: 2) == 1)
        #expect(EnginePollingPayload.batchCount([EnginePacket](), maxPayload: 2) == 0)
        #expect(EnginePollingPayload.encodedLength(of: .binaryMessage([1, 2, 3, 4])) == 9)
        #expect(EnginePollingPayload.encode([EnginePacket.binaryMessage([1, 2, 3, 4])]).count == 9)
    }
}

/// A whole polling body decoded in place gives the same packets, and the same errors, as the
/// incremental decoder fed the body whole and fed it one byte at a time.
@Suite struct EnginePollingBodyDecodeTests {
    static func incremental(_ body: [UInt8], chunk: Int, limit: Int) -> Result<[EnginePacket], EngineProtocolError> {
        var decoder = PollingPayloadDecoder(maximumLength: limit)
        do throws(EngineProtocolError) {
            var packets: [EnginePacket] = []
            var index = 0
            while index < body.count {
                packets += try decoder.feed(body[index..<min(index + chunk, body.count)])
                index += chunk
            }
            return .success(packets + (try decoder.finish()))
        } catch {
            return .failure(error)
        }
    }

    static func whole(_ body: [UInt8], limit: Int) -> Result<[EnginePacket], EngineProtocolError> {
        do throws(EngineProtocolError) {
            return .success(try EnginePollingPayload.decode(body, maximumLength: limit))
        } catch {
            return .failure(error)
        }
    }

    @Test func theWholeBodyDecodesAsTheIncrementalDecoderDoes() {
        var bodies: [String] = [
            "", "4", "4hello", "4a\u{1E}4b", "4a\u{1E}", "\u{1E}4a", "4a\u{1E}\u{1E}4b", "\u{1E}", "2\u{1E}3probe\u{1E}6",
            "bAQID", "b!!!", "4é\u{1E}4漢字", "9", "40{\"sid\":\"x\"}\u{1E}42[\"e\",1]",
        ]
        // Random bodies over a small alphabet of digits, separators and base64.
        var random = SplitMix64(seed: 19)
        let alphabet = Array("0123456b4AQ=x\u{1E}".utf8)
        for _ in 0..<300 {
            let length = Int(random.next() % 12)
            bodies.append(String(decoding: (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self))
        }
        for text in bodies {
            let body = Array(text.utf8)
            for limit in [PollingPayloadDecoder.defaultMaximumLength, max(0, body.count - 1)] {
                let expected = Self.incremental(body, chunk: max(1, body.count), limit: limit)
                #expect(Self.whole(body, limit: limit) == expected, "\(text.debugDescription), limit \(limit)")
                // Byte by byte, an early record's error can come before the size's.
                if limit >= body.count {
                    #expect(Self.incremental(body, chunk: 1, limit: limit) == expected, "\(text.debugDescription) byte by byte")
                }
            }
        }
    }
}
