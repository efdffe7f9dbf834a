import TestSupport
import Testing

@testable import SSEProtocol

/// Random streams built from the tokens that matter to the grammar, compared with a naive
/// reference reading of the spec, fed whole, byte by byte, split everywhere and in random chunks.
@Suite struct SSEParserModelTests {
    private static let tokens: [[UInt8]] = [
        Array("data".utf8), Array("data:".utf8), Array("data: ".utf8), Array("event:".utf8), Array("id:".utf8),
        Array("id".utf8), Array("retry:".utf8), Array("12".utf8), Array("x".utf8), Array(":".utf8), Array(" ".utf8),
        Array("é".utf8), Array("𝄞".utf8), [0], [0xFF], [0xE2, 0x82], [0xEF, 0xBB, 0xBF], [0xEF, 0xBB],
        [0x0D], [0x0A], [0x0D, 0x0A], [0x0A, 0x0A], [0x0D, 0x0D],
    ]

    /// Up to 24 of the tokens, in a random order.
    private static func randomStream(using random: inout SplitMix64) -> [UInt8] {
        var input: [UInt8] = []
        for _ in 0..<Int.random(in: 0...24, using: &random) {
            input += Self.tokens.randomElement(using: &random)!
        }
        return input
    }

    @Test(arguments: [false, true])
    func randomStreamsMatchTheReference(reportsComments: Bool) {
        var random = SplitMix64(seed: reportsComments ? 7 : 3)
        let configuration = SSEParser.Configuration(reportsComments: reportsComments)
        for _ in 0..<400 {
            let input = Self.randomStream(using: &random)
            let expected = ReferenceEventStreamParser.parse(input, reportsComments: reportsComments)
            var chunkings = Feeding.chunkings(input)
            var randomChunks: [[UInt8]] = []
            var offset = 0
            while offset < input.count {
                let end = min(input.count, offset + Int.random(in: 1...5, using: &random))
                randomChunks.append(Array(input[offset..<end]))
                offset = end
            }
            chunkings.append(randomChunks)
            for chunks in chunkings {
                let (outputs, error, _) = Feeding.parse(chunks, configuration: configuration)
                #expect(error == nil)
                #expect(outputs == expected, "input \(input) chunks \(chunks.map(\.count))")
                if outputs != expected { return }
            }
        }
    }

    /// `feed(_:events:_:)` hands each event over in place, in stream order with the retries and
    /// comments; a handler that moves the strings out (as EventSource's decoder does) leaves
    /// nothing behind that a later event would see.
    @Test func eventsHandedOverInPlaceMatchTheReference() {
        var random = SplitMix64(seed: 11)
        let configuration = SSEParser.Configuration(reportsComments: true)
        for _ in 0..<400 {
            let input = Self.randomStream(using: &random)
            let expected = ReferenceEventStreamParser.parse(input, reportsComments: true)
            var parser = SSEParser(configuration: configuration)
            var outputs: [SSEParser.Output] = []
            for byte in input {
                try? parser.feed(
                    [byte],
                    events: { event in
                        var moved = SSEEvent(data: "", lastEventId: event.lastEventId, hasData: event.hasData)
                        swap(&moved.data, &event.data)
                        moved.type = event.type.take()
                        moved.id = event.id.take()
                        outputs.append(.event(moved))
                    },
                    { outputs.append($0) })
            }
            #expect(outputs == expected, "input \(input)")
            if outputs != expected { return }
        }
    }
}
