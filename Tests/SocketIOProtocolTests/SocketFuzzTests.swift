import EngineIOProtocol
import Testing
@testable import SocketIOProtocol

/// Random Socket.IO packet texts: the decoder and assembler throw or succeed, never trap, and
/// whatever decodes re-encodes to text that decodes to the same packet.
@Suite struct SocketFuzzTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            self.state &+= 0x9E37_79B9_7F4A_7C15
            var z = self.state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alphabet: [String] = [
        "0", "1", "2", "3", "4", "5", "6", "9", "-", "/", ",", "admin", "[", "]", "{", "}", "\"", ":",
        "e", "_placeholder", "num", "true", "null", "1.5", "é", "\\", "\\u00e9",
    ]

    @Test func randomPacketsNeverTrapAndRoundTrip() throws {
        var generator = Generator(state: 11)
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
