import Testing
import WebSocketCodec

@Suite struct WebSocketMessageAssemblerTests {
    typealias Event = WebSocketMessageAssembler.Event

    /// Runs frames through an assembler; the error (if any) ends the list as its close code.
    static func run(
        _ frames: [WebSocketFrame], maxMessageSize: Int = 1 << 20,
        decompressor: PerMessageDeflateDecompressor? = nil
    ) -> (events: [Event], closeCode: UInt16?) {
        var assembler = WebSocketMessageAssembler(maxMessageSize: maxMessageSize, decompressor: decompressor)
        var events: [Event] = []
        for frame in frames {
            do throws(WebSocketProtocolError) {
                if let event = try assembler.receive(frame) { events.append(event) }
            } catch {
                return (events, error.closeCode)
            }
        }
        return (events, nil)
    }

    static func text(_ string: String, fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: .text, payload: Array(string.utf8))
    }

    static func continuation(_ bytes: [UInt8], fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: .continuation, payload: bytes)
    }

    @Test func singleFrames() {
        let result = Self.run([Self.text("Hello"), WebSocketFrame(opcode: .binary, payload: [1, 2])])
        #expect(result.events == [.text("Hello"), .binary([1, 2])])
        #expect(result.closeCode == nil)
    }

    @Test func fragmentedWithInterleavedControlFrames() {
        let result = Self.run([
            Self.text("Hel", fin: false),
            WebSocketFrame(opcode: .ping, payload: [7]),
            Self.continuation(Array("l".utf8), fin: false),
            WebSocketFrame(opcode: .pong, payload: []),
            Self.continuation(Array("o".utf8)),
            WebSocketFrame(fin: false, opcode: .binary, payload: [1]),
            Self.continuation([2]),
        ])
        #expect(result.events == [.ping([7]), .pong([]), .text("Hello"), .binary([1, 2])])
        #expect(result.closeCode == nil)
    }

    @Test func characterSplitAcrossFragments() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let result = Self.run([
            WebSocketFrame(fin: false, opcode: .text, payload: [euro[0]]),
            Self.continuation([euro[1]], fin: false),
            Self.continuation([euro[2]]),
        ])
        #expect(result.events == [.text("€")])
    }

    @Test func continuationRules() {
        #expect(Self.run([Self.continuation([1])]).closeCode == 1002)
        #expect(Self.run([Self.text("a", fin: false), Self.text("b")]).closeCode == 1002)
        #expect(Self.run([Self.text("a", fin: false), WebSocketFrame(opcode: .binary, payload: [])]).closeCode == 1002)
    }

    @Test func controlFrameRules() {
        #expect(Self.run([WebSocketFrame(fin: false, opcode: .ping, payload: [])]).closeCode == 1002)
        #expect(Self.run([WebSocketFrame(opcode: .ping, payload: [UInt8](repeating: 0, count: 126))]).closeCode == 1002)
        #expect(Self.run([WebSocketFrame(rsv1: true, opcode: .ping, payload: [])]).closeCode == 1002)
        #expect(Self.run([WebSocketFrame(rsv1: true, opcode: .text, payload: [])]).closeCode == 1002)
    }

    @Test func invalidUTF8FailsInTheFragmentThatCarriesIt() {
        // The first fragment already holds an impossible sequence (F4 90): fail there, before
        // the message is complete.
        let result = Self.run([
            WebSocketFrame(fin: false, opcode: .text, payload: [0xCE, 0xBA, 0xF4, 0x90]),
            Self.continuation(Array("rest".utf8)),
        ])
        #expect(result.events.isEmpty)
        #expect(result.closeCode == 1007)
        #expect(Self.run([WebSocketFrame(opcode: .text, payload: [0xC0, 0xAF])]).closeCode == 1007)
        #expect(Self.run([Self.text("a", fin: false), Self.continuation([0xE2, 0x82])]).closeCode == 1007)
    }

    @Test func messageSizeLimit() {
        #expect(
            Self.run(
                [WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 11))],
                maxMessageSize: 10
            ).closeCode == 1009)
        let fragments = [
            WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 6)),
            Self.continuation([UInt8](repeating: 0, count: 5)),
        ]
        #expect(Self.run(fragments, maxMessageSize: 10).closeCode == 1009)
        #expect(Self.run(fragments, maxMessageSize: 11).events == [.binary([UInt8](repeating: 0, count: 11))])
    }

    static let closeCases: [(payload: [UInt8], event: Event?, code: UInt16?)] = [
        ([], .close(code: nil, reason: ""), nil),
        ([0x03, 0xE8], .close(code: 1000, reason: ""), nil),
        ([0x0B, 0xB8] + Array("bye".utf8), .close(code: 3000, reason: "bye"), nil),
        ([0x13, 0x87], .close(code: 4999, reason: ""), nil),
        ([0x03], nil, 1002),
        ([0x03, 0xED], nil, 1002),  // 1005 may not be sent
        ([0x03, 0xEE], nil, 1002),  // 1006 either
        ([0x03, 0xE7], nil, 1002),  // 999
        ([0x07, 0xD0], nil, 1002),  // 2000
        ([0x13, 0x88], nil, 1002),  // 5000
        ([0x03, 0xE8, 0xCE, 0xBA, 0xED, 0xA0, 0x80], nil, 1007),
    ]

    @Test(arguments: 0..<closeCases.count)
    func closePayloadValidation(_ index: Int) {
        let test = Self.closeCases[index]
        let result = Self.run([WebSocketFrame(opcode: .close, payload: test.payload)])
        #expect(result.events == (test.event.map { [$0] } ?? []))
        #expect(result.closeCode == test.code)
    }

    @Test func fromWireBytesSplitAtEveryOffset() {
        // Fragmented text with a ping in between and a close, through decoder and assembler.
        let bytes: [UInt8] = [
            0x01, 0x03, 0x48, 0x65, 0x6c, 0x89, 0x01, 0x21, 0x80, 0x02, 0x6c, 0x6f,
            0x88, 0x04, 0x03, 0xE8, 0x6f, 0x6b,
        ]
        for way in DecoderFeeding.splits(bytes) {
            let frames = (try? DecoderFeeding.decode(way).get()) ?? []
            #expect(Self.run(frames).events == [.ping([0x21]), .text("Hello"), .close(code: 1000, reason: "ok")])
        }
    }
}
