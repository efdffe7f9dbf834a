import EngineIOProtocol
import Testing
@testable import SocketIOProtocol
import TestSupport

/// Random Socket.IO packet texts: the decoder and assembler throw or succeed, never trap, and
/// whatever decodes re-encodes to text that decodes to the same packet.
@Suite struct SocketFuzzTests {
    static let alphabet: [String] = [
        "0", "1", "2", "3", "4", "5", "6", "9", "-", "/", ",", "admin", "[", "]", "{", "}", "\"", ":",
        "e", "_placeholder", "num", "true", "null", "1.5", "é", "\\", "\\u00e9",
    ]

    @Test func randomPacketsNeverTrapAndRoundTrip() throws {
        var generator = SplitMix64(seed: 11)
        let decoder = SocketPacketDecoder(maximumAttachments: 8)
        var decodedCount = 0
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 12)
            let text = (0..<length).map { _ in Self.alphabet[Int(generator.next() % UInt64(Self.alphabet.count))] }.joined()
            guard let packet = try? decoder.decode(text) else { continue }
            decodedCount += 1
            if packet.type.isBinary, var assembler = try? BinaryPacketAssembler(packet: packet) {
                _ = assembler.packetIfComplete()
                for _ in 0...packet.attachmentCount { _ = try? assembler.append([1]) }
            }
            // Non-binary packets re-encode to an equivalent text.
            if !packet.type.isBinary {
                let reencoded = SocketPacketEncoder.encode(packet)
                #expect(try decoder.decode(reencoded.text) == packet, "\(text)")
            }
        }
        #expect(decodedCount > 100)
    }
}
