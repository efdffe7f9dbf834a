import Testing

@testable import SSEProtocol

/// Inputs found by the libFuzzer targets `sse` and `sse-dataonly` (scripts/fuzz.sh), minimized.
@Suite struct SSEFuzzRegressionTests {
    /// A line past the limit: its bytes up to the limit are reported before the error, so the
    /// consumer sees the same bytes however the stream was cut.
    @Test func scannerReportsTheLineUpToTheLimitBeforeFailing() {
        let input = Array("abcdefgh\n".utf8)
        for chunks in Feeding.chunkings(input) {
            var scanner = SSELineScanner(maximumLineLength: 5)
            var reported: [UInt8] = []
            var failure: SSEParserError?
            for chunk in chunks where failure == nil {
                do {
                    try chunk.withUnsafeBytes { raw in
                        try scanner.scan(raw) { fragment, endsLine in
                            #expect(!endsLine)
                            reported += fragment
                        }
                    }
                } catch {
                    failure = error as? SSEParserError
                }
            }
            #expect(failure == .lineTooLong(limit: 5), "chunks \(chunks)")
            #expect(reported == Array("abcde".utf8), "chunks \(chunks)")
        }
    }

    /// A `data` line over both limits failed with `lineTooLong` when it arrived in one chunk
    /// and with `eventTooLarge` when cut early (found by `sse-dataonly`; same scanner).
    @Test func dataLineOverBothLimitsFailsTheSameWayWhateverTheChunks() {
        let configuration = SSEParser.Configuration(maximumLineLength: 20, maximumEventSize: 5)
        let input = Array("data: 0123456789abcdefghij\n\n".utf8)
        for chunks in Feeding.chunkings(input) {
            let result = Feeding.parse(chunks, configuration: configuration)
            #expect(result.error == .eventTooLarge(limit: 5), "chunks \(chunks)")
            #expect(result.outputs.isEmpty)
        }
    }

    /// A field line (not data) over the line limit still fails with `lineTooLong`.
    @Test func fieldLineOverTheLimitFailsWithLineTooLong() {
        let configuration = SSEParser.Configuration(maximumLineLength: 8, maximumEventSize: 100)
        for chunks in Feeding.chunkings(Array("data: ok\n\nevent: too-long\n\n".utf8)) {
            let result = Feeding.parse(chunks, configuration: configuration)
            #expect(result.error == .lineTooLong(limit: 8), "chunks \(chunks)")
            #expect(result.outputs == [.event(SSEEvent(data: "ok"))], "chunks \(chunks)")
        }
    }

    /// `: ` followed by a combining mark: the U+0020 is removed even though it forms one
    /// Character with the mark (the oracle compared Characters and kept it; found by `sse`).
    @Test func commentSpaceBeforeACombiningMarkIsRemoved() {
        let input = Array(": \u{074A}dat\n".utf8)
        let configuration = SSEParser.Configuration(reportsComments: true)
        for chunks in Feeding.chunkings(input) {
            let result = Feeding.parse(chunks, configuration: configuration)
            #expect(result.outputs == [.comment("\u{074A}dat")], "chunks \(chunks)")
        }
        #expect(ReferenceEventStreamParser.parse(input, reportsComments: true) == [.comment("\u{074A}dat")])
    }
}
