import TestSupport
import Testing
import WebSocketCodec

/// Untrusted bytes: random and mutated-valid input through decoder and assembler must end in
/// frames, "need more" or a typed error — never a trap — and the same result however the
/// input is split.
@Suite struct WebSocketRandomInputTests {
    static func run(_ chunks: [[UInt8]], maxSize: Int) -> String {
        var decoder = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: maxSize, allowsRSV1: true)
        var assembler = WebSocketMessageAssembler(
            maxMessageSize: maxSize,
            decompressor: PerMessageDeflateDecompressor(noContextTakeover: false))
        var log: [String] = []
        do throws(WebSocketProtocolError) {
            for chunk in chunks {
                decoder.append(chunk)
                while let frame = try decoder.nextFrame() {
                    if let event = try assembler.receive(frame) { log.append(Self.describe(event)) }
                }
            }
        } catch {
            log.append("error \(error.closeCode)")
        }
        return log.joined(separator: "|")
    }

    static func describe(_ event: WebSocketMessageAssembler.Event) -> String {
        switch event {
        case .text(let text): return "text \(text.utf8.count)"
        case .binary(let bytes): return "binary \(bytes.count)"
        case .ping(let bytes): return "ping \(bytes.count)"
        case .pong(let bytes): return "pong \(bytes.count)"
        case .close(let code, let reason): return "close \(code ?? 0) \(reason.utf8.count)"
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SplitMix64(seed: 6455)
        for _ in 0..<1000 {
            let length = Int(generator.next() % 64)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let whole = Self.run([bytes], maxSize: 1 << 16)
            let split = Int(generator.next() % UInt64(length + 1))
            #expect(Self.run([Array(bytes[..<split]), Array(bytes[split...])], maxSize: 1 << 16) == whole)
        }
    }

    @Test func mutatedValidStreamsNeverTrap() {
        let valid: [UInt8] =
            [0x01, 0x03, 0x48, 0x65, 0x6c, 0x89, 0x01, 0x21, 0x80, 0x02, 0x6c, 0x6f]
            + [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]
            + [0x88, 0x04, 0x03, 0xE8, 0x6f, 0x6b]
        var generator = SplitMix64(seed: 7692)
        for _ in 0..<1000 {
            var bytes = valid
            for _ in 0..<(1 + generator.next() % 3) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] ^= UInt8(truncatingIfNeeded: 1 << (generator.next() % 8))
            }
            let whole = Self.run([bytes], maxSize: 1 << 16)
            #expect(Self.run(bytes.map { [$0] }, maxSize: 1 << 16) == whole)
        }
    }
}
