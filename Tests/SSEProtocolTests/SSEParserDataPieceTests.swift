import TestSupport
import Testing

@testable import SSEProtocol

/// Large `data` values fed as arrays stay in their chunks until dispatch (``SSEParser``'s data
/// pieces): the events must equal what the copying path (raw-pointer feeding) and the
/// reference parser produce, for any chunking, and the size limit must hold.
@Suite struct SSEParserDataPieceTests {
    /// A stream mixing small and large values, several `data` lines per event, comments and
    /// all three line endings.
    private static func stream() -> [UInt8] {
        func text(_ count: Int, _ letter: Character) -> String { String(repeating: letter, count: count) }
        var stream = ""
        stream += "data: small\n\n"
        stream += "id: 1\ndata: " + text(5000, "a") + "\n\n"
        stream += "data:" + text(70_000, "b") + "\r\ndata: tail\r\n\r\n"
        stream += ": a comment between\n"
        stream += "data: head\rdata: " + text(300_000, "c") + "\rdata: " + text(4096, "d") + "\r\r"
        stream += "event: big\ndata: " + text(131_072, "é") + "\n\n"
        stream += "data: " + text(4095, "e") + "\ndata:\n\n"
        return Array(stream.utf8)
    }

    /// `bytes` cut into chunks of random sizes up to `largest`.
    private static func chunks(_ bytes: [UInt8], seed: UInt64, largest: Int) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        var result: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let size = Int.random(in: 1...largest, using: &random)
            result.append(Array(bytes[index..<min(index + size, bytes.count)]))
            index += size
        }
        return result
    }

    /// The copying path: the same chunks fed through raw pointers (no array to keep).
    private static func parseCopying(_ chunks: [[UInt8]], configuration: SSEParser.Configuration)
        -> (outputs: [SSEParser.Output], error: SSEParserError?)
    {
        var parser = SSEParser(configuration: configuration)
        var outputs: [SSEParser.Output] = []
        for chunk in chunks {
            do {
                try chunk.withUnsafeBytes { raw in
                    try parser.feed(raw) { outputs.append($0) }
                }
            } catch {
                return (outputs, error as? SSEParserError)
            }
        }
        return (outputs, nil)
    }

    @Test(arguments: [(1, 64), (2, 4096), (3, 16_384), (4, 65_536), (5, 300_000), (6, 1_000_000)])
    func piecesGiveTheSameEventsAsCopying(seed: UInt64, largest: Int) {
        let stream = Self.stream()
        let configuration = SSEParser.Configuration(reportsComments: true)
        let chunks = Self.chunks(stream, seed: seed, largest: largest)
        let kept = Feeding.parse(chunks, configuration: configuration)
        let copied = Self.parseCopying(chunks, configuration: configuration)
        #expect(kept.error == nil)
        #expect(kept.outputs == copied.outputs)
        #expect(kept.outputs == ReferenceEventStreamParser.parse(stream, reportsComments: true))
        let sizes = kept.outputs.compactMap { output -> Int? in
            if case .event(let event) = output { return event.data.utf8.count }
            return nil
        }
        #expect(sizes == [5, 5000, 70_005, 304_102, 262_144, 4096])
    }

    @Test func theSizeLimitCountsKeptPieces() {
        let configuration = SSEParser.Configuration(maximumLineLength: 1 << 20, maximumEventSize: 100_000)
        let fits = Array(("data: " + String(repeating: "x", count: 99_999) + "\n\n").utf8)
        let tooLarge = Array(
            ("data: " + String(repeating: "x", count: 60_000) + "\ndata: "
                + String(repeating: "y", count: 40_000) + "\n\n").utf8)
        for largest in [8192, 65_536, 1 << 20] {
            let ok = Feeding.parse(Self.chunks(fits, seed: 9, largest: largest), configuration: configuration)
            #expect(ok.error == nil)
            #expect(ok.outputs.count == 1)
            let failed = Feeding.parse(Self.chunks(tooLarge, seed: 9, largest: largest), configuration: configuration)
            #expect(failed.error == .eventTooLarge(limit: 100_000))
            #expect(failed.outputs.isEmpty)
            // After a reset the parser starts clean: nothing of the failed event leaks into the next.
            var parser = failed.parser
            parser.reset()
            let next = Feeding.parse([Array("data: after\n\n".utf8)], parser: parser)
            #expect(next.outputs == [.event(SSEEvent(data: "after"))])
        }
    }

    @Test func aResetDropsAnUnfinishedEventsPieces() throws {
        var parser = SSEParser()
        try parser.feed(Array(("data: " + String(repeating: "z", count: 50_000)).utf8)) { _ in }
        parser.reset()
        let outputs = try parser.parse(Array("data: fresh\n\n".utf8))
        #expect(outputs == [.event(SSEEvent(data: "fresh"))])
    }
}
