import Testing
import WebSocketCodec

/// The fail-fast UTF-8 check of a text frame still arriving (``WebSocketPartialTextCheck``)
/// gives the close code the complete frame would give, however the bytes are chunked.
@Suite struct WebSocketPartialTextCheckTests {
    /// Decodes `chunks` as the connection does (decoder, fail-fast check, assembler); returns
    /// the messages and the close code of the error, if any.
    static func run(_ chunks: [[UInt8]], deflate: Bool = false, maxMessageSize: Int = 1 << 20)
        -> (events: [WebSocketMessageAssembler.Event], closeCode: UInt16?)
    {
        var decoder = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: 1 << 20, allowsRSV1: deflate)
        var assembler = WebSocketMessageAssembler(
            maxMessageSize: maxMessageSize,
            decompressor: deflate ? PerMessageDeflateDecompressor(noContextTakeover: false) : nil)
        var check = WebSocketPartialTextCheck()
        var events: [WebSocketMessageAssembler.Event] = []
        do throws(WebSocketProtocolError) {
            for chunk in chunks {
                decoder.append(chunk)
                while true {
                    guard let frame = try decoder.nextFrame() else {
                        try check.check(decoder, assembler)
                        break
                    }
                    check.frameCompleted()
                    if let event = try assembler.receive(frame) { events.append(event) }
                }
            }
        } catch {
            return (events, error.closeCode)
        }
        return (events, nil)
    }

    /// Every chunking of `bytes` gives the same result; returns it.
    static func runAllWays(_ bytes: [UInt8], deflate: Bool = false, maxMessageSize: Int = 1 << 20)
        -> (events: [WebSocketMessageAssembler.Event], closeCodes: Set<UInt16?>)
    {
        let whole = self.run([bytes], deflate: deflate, maxMessageSize: maxMessageSize)
        var codes: Set<UInt16?> = [whole.closeCode]
        for way in DecoderFeeding.splits(bytes) {
            let result = self.run(way, deflate: deflate, maxMessageSize: maxMessageSize)
            #expect(result.events == whole.events)
            codes.insert(result.closeCode)
        }
        return (whole.events, codes)
    }

    /// Fuzz finding `websocket-frames` (Fuzz/Corpus/websocket-frames/rsv1-continuation-invalid-utf8.bin):
    /// a compressed empty text message, then a fragmented uncompressed text message whose third
    /// continuation sets RSV1 (a protocol error, RFC 7692 §6.1) and carries invalid UTF-8.
    /// The header comes first in the stream, so 1002 wins; the fail-fast check used to see the
    /// payload of the partial frame first and report 1007 when the frame arrived in pieces.
    @Test func rsv1OnAContinuationWinsOverInvalidUTF8InItsPayload() {
        var bytes: [UInt8] = [0xC1, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x40]
        bytes += [UInt8](repeating: 0x40, count: 11) + [UInt8](repeating: 0x99, count: 9)
        bytes += [UInt8](repeating: 0x40, count: 43) + [0x7A]
        bytes += [0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00]
        let result = Self.runAllWays(bytes, deflate: true)
        #expect(result.events == [.text("")])
        #expect(result.closeCodes == [1002])
    }

    /// The same frame without RSV1 fails fast with 1007 (Autobahn 6.4.x), from any chunking.
    @Test func invalidUTF8InAPartialContinuationFailsWith1007() {
        let frames: [UInt8] = [0x01, 0x02] + Array("ab".utf8) + [0x80, 0x05, 0x63, 0xF4, 0x90, 0x80, 0x80]
        let result = Self.runAllWays(frames)
        #expect(result.closeCodes == [1007])
        // Cut before the frame completes: the invalid prefix alone already fails.
        #expect(Self.run([Array(frames[..<9])]).closeCode == 1007)
    }

    /// A text frame that would take the message over the limit is 1009 once complete, and
    /// is not failed early as 1007 when its payload is also invalid UTF-8.
    @Test func aMessageOverTheLimitIs1009NotAnEarly1007() {
        let payload = [UInt8](repeating: 0xFF, count: 20)
        let frame: [UInt8] = [0x81, UInt8(payload.count)] + payload
        let result = Self.runAllWays(frame, maxMessageSize: 16)
        #expect(result.closeCodes == [1009])
        #expect(Self.run([Array(frame[..<10])], maxMessageSize: 16).closeCode == nil)
    }

    /// A partial text frame arriving while another message is being assembled is the
    /// protocol error of its header (1002), not the invalid UTF-8 of its payload.
    @Test func aTextFrameInsideAFragmentedMessageIs1002() {
        let bytes: [UInt8] = [0x01, 0x01, 0x61, 0x81, 0x03, 0xFF, 0xFF, 0xFF]
        #expect(Self.runAllWays(bytes).closeCodes == [1002])
    }
}
