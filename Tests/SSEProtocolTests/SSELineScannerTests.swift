import Testing

@testable import SSEProtocol

@Suite struct SSELineScannerTests {
    /// Complete lines, fragments joined, and the bytes of the unfinished last line.
    private func lines(_ chunks: [[UInt8]], limit: Int = 1 << 20) throws -> (lines: [[UInt8]], rest: [UInt8]) {
        var scanner = SSELineScanner(maximumLineLength: limit)
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        for chunk in chunks {
            try chunk.withUnsafeBytes { raw in
                try scanner.scan(raw) { fragment, endsLine in
                    current += fragment
                    if endsLine {
                        lines.append(current)
                        current = []
                    }
                }
            }
        }
        return (lines, current)
    }

    @Test(arguments: [
        ("a\nb\rc\r\nd", ["a", "b", "c"], "d"),
        ("\r\n\r\n", ["", ""], ""),
        ("\r\r\n\n", ["", "", ""], ""),
        ("\n\r", ["", ""], ""),
        ("no terminator", [], "no terminator"),
        ("long line of text longer than eight bytes\r\nx", ["long line of text longer than eight bytes"], "x"),
    ])
    func lineEndings(input: String, expected: [String], rest: String) throws {
        for chunks in Feeding.chunkings(Array(input.utf8)) {
            let result = try self.lines(chunks)
            #expect(result.lines.map { String(decoding: $0, as: UTF8.self) } == expected)
            #expect(String(decoding: result.rest, as: UTF8.self) == rest)
        }
    }

    @Test(
        arguments: [
            ([0xEF, 0xBB, 0xBF, 0x61, 0x0A], [[0x61]], [UInt8]()),
            ([0xEF, 0xBB, 0x61, 0x0A], [[0xEF, 0xBB, 0x61]], []),
            ([0xEF, 0x0A, 0x61], [[0xEF]], [0x61]),
            ([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x0A], [[0xEF, 0xBB, 0xBF]], []),
            ([0x61, 0xEF, 0xBB, 0xBF, 0x0A], [[0x61, 0xEF, 0xBB, 0xBF]], []),
            ([0xEF, 0xBB], [], [0xEF, 0xBB]),
        ] as [([UInt8], [[UInt8]], [UInt8])])
    func byteOrderMarkOnlyAtTheStart(input: [UInt8], expected: [[UInt8]], rest: [UInt8]) throws {
        for chunks in Feeding.chunkings(input) {
            let result = try self.lines(chunks)
            #expect(result.lines == expected, "chunks \(chunks)")
            // A BOM prefix still undecided at the end is held back, never reported.
            if input != [0xEF, 0xBB] { #expect(result.rest == rest, "chunks \(chunks)") }
        }
    }

    @Test func lineLengthLimitCountsFragmentsAcrossChunks() throws {
        #expect(throws: SSEParserError.lineTooLong(limit: 4)) { try self.lines([Array("ab".utf8), Array("cde".utf8)], limit: 4) }
        let ok = try self.lines([Array("ab".utf8), Array("cd\nabcd\n".utf8)], limit: 4)
        #expect(ok.lines.count == 2)
    }

    @Test func resetStartsANewStream() throws {
        var scanner = SSELineScanner()
        var reported: [[UInt8]] = []
        let first: [UInt8] = [0x61, 0x0D]
        try first.withUnsafeBytes { raw in try scanner.scan(raw) { bytes, _ in reported.append(Array(bytes)) } }
        scanner.reset()
        let second: [UInt8] = [0xEF, 0xBB, 0xBF, 0x0A]
        // After reset the BOM is stripped again and the LF is not taken as the CR's partner.
        try second.withUnsafeBytes { raw in try scanner.scan(raw) { bytes, _ in reported.append(Array(bytes)) } }
        #expect(reported == [[0x61], []])
    }
}
