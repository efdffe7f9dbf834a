import TestSupport
import Testing
import WebSocketCodec

@Suite struct PerMessageDeflateTests {
    static let helloCompressed: [UInt8] = [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]

    static func assemble(_ bytes: [UInt8], noContextTakeover: Bool = false, limit: Int = 1 << 20)
        -> [Result<[WebSocketMessageAssembler.Event], WebSocketProtocolError>]
    {
        var results: [Result<[WebSocketMessageAssembler.Event], WebSocketProtocolError>] = []
        for way in DecoderFeeding.splits(bytes) {
            let result: Result<[WebSocketMessageAssembler.Event], WebSocketProtocolError>
            do throws(WebSocketProtocolError) {
                let frames = try DecoderFeeding.decode(way, allowsRSV1: true).get()
                var assembler = WebSocketMessageAssembler(
                    maxMessageSize: limit,
                    decompressor: PerMessageDeflateDecompressor(noContextTakeover: noContextTakeover))
                var events: [WebSocketMessageAssembler.Event] = []
                for frame in frames {
                    if let event = try assembler.receive(frame) { events.append(event) }
                }
                result = .success(events)
            } catch {
                result = .failure(error)
            }
            if !results.contains(result) { results.append(result) }
        }
        return results
    }

    // MARK: RFC 7692 §7.2.3 examples

    @Test func compressedHello() {
        #expect(Self.assemble([0xc1, 0x07] + Self.helloCompressed) == [.success([.text("Hello")])])
    }

    @Test func compressedHelloFragmented() {
        let bytes: [UInt8] = [0x41, 0x03, 0xf2, 0x48, 0xcd, 0x80, 0x04, 0xc9, 0xc9, 0x07, 0x00]
        #expect(Self.assemble(bytes) == [.success([.text("Hello")])])
    }

    @Test func sharedSlidingWindow() {
        let bytes: [UInt8] = [0xc1, 0x07] + Self.helloCompressed + [0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00]
        #expect(Self.assemble(bytes) == [.success([.text("Hello"), .text("Hello")])])
    }

    @Test func storedBlock() {
        let bytes: [UInt8] = [0xc1, 0x0b, 0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00]
        #expect(Self.assemble(bytes) == [.success([.text("Hello")])])
    }

    @Test func finalBlockThenNextMessage() {
        // §7.2.3.4: BFINAL set; the next message starts a fresh DEFLATE stream.
        let bytes: [UInt8] =
            [0xc1, 0x08, 0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00]
            + [0xc1, 0x07] + Self.helloCompressed
        #expect(Self.assemble(bytes, noContextTakeover: true) == [.success([.text("Hello"), .text("Hello")])])
    }

    @Test func uncompressedMessageBetweenCompressedOnes() {
        let bytes: [UInt8] = [0xc1, 0x07] + Self.helloCompressed + [0x82, 0x02, 0x01, 0x02]
        #expect(Self.assemble(bytes) == [.success([.text("Hello"), .binary([1, 2])])])
    }

    // MARK: Compressor

    @Test func compressorMatchesRFCExamples() throws {
        let compressor = try #require(PerMessageDeflateCompressor(windowBits: 15, noContextTakeover: false))
        #expect(compressor.compress(Array("Hello".utf8)) == Self.helloCompressed)
        #expect(compressor.compress(Array("Hello".utf8)) == [0xf2, 0x00, 0x11, 0x00, 0x00])
        let resetting = try #require(PerMessageDeflateCompressor(windowBits: 15, noContextTakeover: true))
        #expect(resetting.compress(Array("Hello".utf8)) == Self.helloCompressed)
        #expect(resetting.compress(Array("Hello".utf8)) == Self.helloCompressed)
    }

    @Test(arguments: [(15, false), (15, true), (9, false), (9, true)])
    func roundTrip(windowBits: Int, noContextTakeover: Bool) throws {
        let compressor = try #require(PerMessageDeflateCompressor(windowBits: windowBits, noContextTakeover: noContextTakeover))
        let decompressor = try #require(PerMessageDeflateDecompressor(noContextTakeover: noContextTakeover))
        var generator = SplitMix64(seed: 42)
        let messages: [[UInt8]] = [
            [],
            Array(String(repeating: "swift-realtime ", count: 2000).utf8),
            (0..<100_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) },  // incompressible
            [UInt8](repeating: 0, count: 300_000),
        ]
        for message in messages {
            let compressed = compressor.compress(message)
            var output: [UInt8] = []
            try decompressor.decompress(compressed, into: &output, limit: 1 << 20)
            try decompressor.finishMessage(into: &output, limit: 1 << 20)
            #expect(output == message)
        }
    }

    @Test func decompressionBombStopsAtTheLimit() throws {
        let compressor = try #require(PerMessageDeflateCompressor(windowBits: 15, noContextTakeover: true))
        let bomb = compressor.compress([UInt8](repeating: 0, count: 4 << 20))
        #expect(bomb.count < 10_000)
        var frame = WebSocketFrameEncoder.encode(opcode: .binary, payload: bomb, rsv1: true, maskingKey: nil)
        frame = Array(frame)
        var decoder = WebSocketFrameDecoder(allowsRSV1: true)
        decoder.append(frame)
        let decoded = try #require(try decoder.nextFrame())
        var assembler = WebSocketMessageAssembler(
            maxMessageSize: 64 * 1024,
            decompressor: PerMessageDeflateDecompressor(noContextTakeover: true))
        #expect(throws: WebSocketProtocolError.messageTooBig("decompressed message over the limit of 65536 bytes")) {
            try assembler.receive(decoded)
        }
    }

    @Test func corruptDataFails() {
        let results = Self.assemble([0xc2, 0x03, 0xff, 0xff, 0xff])
        #expect(results.count == 1)
        if case .failure(let error) = results.first {
            #expect(error.closeCode == 1007)
        } else {
            Issue.record("corrupt DEFLATE data was accepted")
        }
    }

    // MARK: Negotiation

    @Test func negotiationResponses() throws {
        #expect(try PerMessageDeflateParameters(serverResponse: []) == nil)
        #expect(try PerMessageDeflateParameters(serverResponse: ["permessage-deflate"]) == PerMessageDeflateParameters())
        #expect(
            try PerMessageDeflateParameters(serverResponse: [
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=\"12\""
            ])
                == PerMessageDeflateParameters(
                    clientNoContextTakeover: true, serverNoContextTakeover: true,
                    clientMaxWindowBits: 12, serverMaxWindowBits: 10))
    }

    @Test(arguments: [
        "x-webkit-deflate-frame",
        "permessage-deflate, permessage-deflate",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; client_max_window_bits=010",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; foo=bar",
        // A parameter with no name (a hostile server's; once an index out of range).
        "permessage-deflate; =",
        "permessage-deflate; ==",
        "permessage-deflate; = 12",
        "permessage-deflate; =server_no_context_takeover",
        "permessage-deflate; server_max_window_bits=",
    ])
    func badNegotiationFailsWith1010(_ header: String) {
        #expect(throws: WebSocketProtocolError.self) {
            _ = try PerMessageDeflateParameters(serverResponse: [header])
        }
    }
}
