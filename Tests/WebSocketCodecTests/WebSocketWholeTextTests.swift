import TestSupport
import Testing
import WebSocketCodec

/// `WebSocketFrameDecoder.nextWholeText(maxLength:)`, the one-copy path of a whole text
/// message: decoding with it gives exactly the messages and errors of `nextFrame()` plus the
/// assembler, for every kind of frame, fed whole, byte by byte and split anywhere.
@Suite struct WebSocketWholeTextTests {
    typealias Outcome = Result<[WebSocketMessageAssembler.Event], WebSocketProtocolError>

    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, masked: Bool = false) -> [UInt8] {
        WebSocketFrameEncoder.encode(
            opcode: opcode, payload: payload, fin: fin, rsv1: rsv1,
            maskingKey: masked ? WebSocketMaskingKey(1, 2, 3, 4) : nil)
    }

    static func text(_ string: String) -> [UInt8] { Self.frame(.text, Array(string.utf8)) }

    /// Frames of every kind the fast path must either take as the slow path would, or leave.
    static let frames: [[UInt8]] = [
        Self.text("hello"),
        Self.text(""),
        Self.text("héllo wörld 漢字 🎉"),
        Self.text(String(repeating: "a", count: 200)),  // 16-bit length
        Self.text(String(repeating: "b", count: 70_000)),  // 64-bit length
        Self.text(String(repeating: "c", count: 1_500)),  // over the message limit below
        Self.frame(.text, [0x68, 0xC3]),  // ends inside a character
        Self.frame(.text, [0xFF, 0x61]),  // invalid UTF-8
        Self.frame(.text, Array("masked".utf8), masked: true),  // a server must not mask
        Self.frame(.text, Array("deflated".utf8), rsv1: true),  // RSV1 without the extension
        Self.frame(.text, Array("frag".utf8), fin: false) + Self.frame(.continuation, Array("ment".utf8)),
        Self.frame(.text, Array("half".utf8), fin: false),  // a fragmented message left open
        Self.frame(.binary, [0, 1, 2]),
        Self.frame(.ping, Array("p".utf8)),
        Self.frame(.pong, []),
    ]

    static func decode(_ chunks: [[UInt8]], wholeText: Bool) -> Outcome {
        var decoder = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: 100_000)
        var assembler = WebSocketMessageAssembler(maxMessageSize: 1_000)
        var events: [WebSocketMessageAssembler.Event] = []
        do throws(WebSocketProtocolError) {
            for chunk in chunks {
                decoder.append(chunk)
                while true {
                    if wholeText, assembler.isIdle, let text = decoder.nextWholeText(maxLength: assembler.maxMessageSize) {
                        events.append(.text(text))
                        continue
                    }
                    guard let frame = try decoder.nextFrame() else { break }
                    if let event = try assembler.receive(frame) { events.append(event) }
                }
            }
        } catch {
            return .failure(error)
        }
        return .success(events)
    }

    static func expectSame(_ bytes: [UInt8], offsets: [Int]? = nil) {
        let expected = Self.decode([bytes], wholeText: false)
        for way in DecoderFeeding.splits(bytes, offsets: offsets) {
            #expect(Self.decode(way, wholeText: true) == expected)
        }
    }

    @Test(arguments: Self.frames.indices)
    func eachFrameDecodesAsWithoutTheFastPath(_ index: Int) {
        let bytes = Self.frames[index]
        // Byte by byte and every split for small frames; a sample of offsets for large ones.
        Self.expectSame(bytes, offsets: bytes.count > 300 ? [0, 1, 2, 3, 4, 9, 10, 11, bytes.count / 2, bytes.count - 1] : nil)
    }

    @Test func randomSequencesDecodeAsWithoutTheFastPath() {
        var random = SplitMix64(seed: 6455)
        let small = Self.frames.filter { $0.count < 300 }
        for _ in 0..<200 {
            let count = 1 + Int(random.next() % 4)
            let bytes = (0..<count).flatMap { _ in small[Int(random.next() % UInt64(small.count))] }
            let offsets = (0..<6).map { _ in Int(random.next() % UInt64(bytes.count + 1)) }
            Self.expectSame(bytes, offsets: offsets)
        }
    }

    @Test func aWholeTextFrameIsTakenAndConsumed() {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(Self.text("one") + Self.text("two") + Self.frame(.binary, [7]))
        #expect(decoder.nextWholeText(maxLength: 10) == "one")
        #expect(decoder.nextWholeText(maxLength: 2) == nil)  // over the limit: left for nextFrame
        #expect((try? decoder.nextFrame())?.payload == Array("two".utf8))
        #expect(decoder.nextWholeText(maxLength: 10) == nil)  // binary: left for nextFrame
        #expect((try? decoder.nextFrame())?.opcode == .binary)
        #expect(decoder.bufferedByteCount == 0)
    }
}
