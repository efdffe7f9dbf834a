import Testing

@testable import SSEProtocol

/// One input of the WHATWG interpretation rules and what it must produce.
struct ParserVector: CustomTestStringConvertible, Sendable {
    var name: String
    var input: [UInt8]
    var expected: [SSEParser.Output]
    var error: SSEParserError? = nil
    var configuration = SSEParser.Configuration()
    /// The committed last event ID after the whole input.
    var lastEventId: String? = nil

    var testDescription: String { self.name }

    init(
        _ name: String, _ input: [UInt8], _ expected: [SSEParser.Output],
        error: SSEParserError? = nil, configuration: SSEParser.Configuration = .init(), lastEventId: String? = nil
    ) {
        self.name = name
        self.input = input
        self.expected = expected
        self.error = error
        self.configuration = configuration
        self.lastEventId = lastEventId
    }

    init(
        _ name: String, _ text: String, _ expected: [SSEParser.Output],
        error: SSEParserError? = nil, configuration: SSEParser.Configuration = .init(), lastEventId: String? = nil
    ) {
        self.init(name, Array(text.utf8), expected, error: error, configuration: configuration, lastEventId: lastEventId)
    }
}

private func event(_ data: String, type: String? = nil, id: String? = nil, lastEventId: String = "") -> SSEParser.Output {
    .event(SSEEvent(type: type, data: data, id: id, lastEventId: lastEventId))
}

private let comments = SSEParser.Configuration(reportsComments: true)

let parserVectors: [ParserVector] = [
    // Dispatch and data
    ParserVector("single event", "data: hello\n\n", [event("hello")]),
    ParserVector("two events", "data: a\n\ndata: b\n\n", [event("a"), event("b")]),
    ParserVector("data lines joined with LF", "data: a\ndata: b\ndata: c\n\n", [event("a\nb\nc")]),
    ParserVector("only the final LF is removed", "data: a\ndata:\n\n", [event("a\n")]),
    ParserVector("data without colon is an empty value", "data\n\n", [event("")]),
    ParserVector("two empty data lines", "data\ndata\n\n", [event("\n")]),
    ParserVector("one leading space stripped", "data:  two spaces\n\n", [event(" two spaces")]),
    ParserVector("no space after colon", "data:x\n\n", [event("x")]),
    ParserVector("colon inside the value", "data: a:b: c\n\n", [event("a:b: c")]),
    ParserVector("trailing spaces kept", "data: x  \n\n", [event("x  ")]),
    ParserVector("empty data is not dispatched", "event: ping\n\n", []),
    ParserVector("type reset after undispatched event", "event: ping\n\ndata: y\n\n", [event("y")]),
    ParserVector("unterminated event discarded", "data: x\n", []),
    ParserVector("unterminated line discarded", "data: x", []),
    ParserVector("blank lines alone dispatch nothing", "\n\n\r\n\r", []),

    // event
    ParserVector("event type", "event: add\ndata: 1\n\n", [event("1", type: "add")]),
    ParserVector("event absent is nil", "data: 1\n\n", [event("1", type: nil)]),
    ParserVector("empty event is nil", "event:\ndata: 1\n\n", [event("1", type: nil)]),
    ParserVector("last event field wins", "event: a\nevent: b\ndata: 1\n\n", [event("1", type: "b")]),
    ParserVector(
        "event type does not persist", "event: a\ndata: 1\n\ndata: 2\n\n",
        [event("1", type: "a"), event("2")]),

    // id
    ParserVector("id", "id: 1\ndata: x\n\n", [event("x", id: "1", lastEventId: "1")], lastEventId: "1"),
    ParserVector(
        "last event id persists", "id: 1\ndata: x\n\ndata: y\n\n",
        [event("x", id: "1", lastEventId: "1"), event("y", lastEventId: "1")], lastEventId: "1"),
    ParserVector(
        "empty id resets", "id: 1\ndata: x\n\nid\ndata: y\n\n",
        [event("x", id: "1", lastEventId: "1"), event("y", id: "", lastEventId: "")], lastEventId: ""),
    ParserVector(
        "empty id with colon resets", "id: 1\ndata: x\n\nid:\ndata: y\n\n",
        [event("x", id: "1", lastEventId: "1"), event("y", id: "", lastEventId: "")], lastEventId: ""),
    ParserVector(
        "id with NUL ignored", Array("id: 1\ndata: x\n\nid: a".utf8) + [0] + Array("b\ndata: y\n\n".utf8),
        [event("x", id: "1", lastEventId: "1"), event("y", lastEventId: "1")], lastEventId: "1"),
    ParserVector(
        "id committed by an event with empty data", "id: 5\n\ndata: x\n\n",
        [event("x", lastEventId: "5")], lastEventId: "5"),
    ParserVector(
        "id of an unterminated event is not committed", "data: a\n\nid: 9\ndata: x\n",
        [event("a")], lastEventId: ""),
    ParserVector("id after data in the same block", "data: x\nid: 7\n\n", [event("x", id: "7", lastEventId: "7")]),

    // retry
    ParserVector("retry digits", "retry: 1500\n", [.retry(1500)]),
    ParserVector("retry zero", "retry: 0\n", [.retry(0)]),
    ParserVector("retry with a letter ignored", "retry: 15a\n", []),
    ParserVector("retry negative ignored", "retry: -1\n", []),
    ParserVector("retry empty ignored", "retry:\nretry\n", []),
    ParserVector("retry with space inside ignored", "retry: 1 5\n", []),
    ParserVector("retry saturates", "retry: 99999999999999999999999999\n", [.retry(Int.max)]),
    ParserVector("retry in stream order", "data: a\nretry: 7\n\n", [.retry(7), event("a")]),

    // Fields and comments
    ParserVector("unknown field ignored", "foo: bar\ndata: x\n\n", [event("x")]),
    ParserVector("field name with space is unknown", "data : x\n\n", []),
    ParserVector("field names are case-sensitive", "Data: x\n\n", []),
    ParserVector("comment ignored", ": hi\ndata: x\n\n", [event("x")]),
    ParserVector("comment reported", ": hi\ndata: x\n\n", [.comment("hi"), event("x")], configuration: comments),
    ParserVector("empty comment reported", ":\n", [.comment("")], configuration: comments),
    ParserVector("comment keeps second space", ":  two\n", [.comment(" two")], configuration: comments),
    ParserVector("comment does not end an event", "data: a\n: keep-alive\ndata: b\n\n", [event("a\nb")]),

    // Line endings
    ParserVector("CRLF", "data: a\r\ndata: b\r\n\r\n", [event("a\nb")]),
    ParserVector("CR only", "data: a\rdata: b\r\rdata: c\r\r", [event("a\nb"), event("c")]),
    ParserVector("mixed endings", "data: a\r\n\ndata: b\n\r\ndata: c\r\r\n", [event("a"), event("b"), event("c")]),
    ParserVector("CR CR is two line ends", "data: a\r\r", [event("a")]),
    ParserVector("LF CR is two line ends", "data: a\n\r", [event("a")]),
    ParserVector("CR in the middle ends the line", "data: a\rb\n\n", [event("a")]),

    // Byte order mark
    ParserVector("BOM stripped", [0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8), [event("x")]),
    ParserVector(
        "only one BOM stripped", [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: x\n\ndata: y\n\n".utf8),
        [event("y")]),
    ParserVector(
        "BOM after the start is content", Array("data: a\n\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8),
        [event("a")]),
    ParserVector(
        "BOM inside a value is kept", Array("data: ".utf8) + [0xEF, 0xBB, 0xBF] + Array("x\n\n".utf8),
        [event("\u{FEFF}x")]),
    ParserVector("BOM-like prefix is content", [0xEF, 0xBB] + Array(": c\ndata: x\n\n".utf8), [event("x")]),
    ParserVector("BOM then CRLF", [0xEF, 0xBB, 0xBF] + Array("\r\ndata: x\r\n\r\n".utf8), [event("x")]),

    // UTF-8
    ParserVector("multi-byte characters", "event: é\ndata: héllo € 𝄞 日本\n\n", [event("héllo € 𝄞 日本", type: "é")]),
    ParserVector(
        "invalid bytes become U+FFFD", Array("data: ".utf8) + [0xFF, 0xC3, 0x28] + Array("\n\n".utf8),
        [event("\u{FFFD}\u{FFFD}(")]),
    ParserVector(
        "truncated sequence is one U+FFFD", Array("data: ".utf8) + [0xE2, 0x82] + Array("\ndata: x\n\n".utf8),
        [event("\u{FFFD}\nx")]),
    ParserVector(
        "overlong encoding replaced", Array("data: ".utf8) + [0xC0, 0xAF] + Array("\n\n".utf8),
        [event("\u{FFFD}\u{FFFD}")]),
    ParserVector(
        "surrogate encoding replaced", Array("data: ".utf8) + [0xED, 0xA0, 0x80] + Array("\n\n".utf8),
        [event("\u{FFFD}\u{FFFD}\u{FFFD}")]),
    ParserVector(
        "invalid bytes in id", Array("id: ".utf8) + [0xFF] + Array("\ndata: x\n\n".utf8),
        [event("x", id: "\u{FFFD}", lastEventId: "\u{FFFD}")]),

    // Limits
    ParserVector(
        "line at the limit", "event: 012\ndata: x\n\n", [event("x", type: "012")],
        configuration: .init(maximumLineLength: 10)),
    ParserVector(
        "line too long", "data: a\n\nevent: 0123\n", [event("a")], error: .lineTooLong(limit: 10),
        configuration: .init(maximumLineLength: 10)),
    ParserVector(
        "comment too long", ": 0123456789\n", [], error: .lineTooLong(limit: 10),
        configuration: .init(maximumLineLength: 10)),
    ParserVector(
        "endless line", String(repeating: "x", count: 64), [], error: .lineTooLong(limit: 10),
        configuration: .init(maximumLineLength: 10)),
    ParserVector(
        "event at the size limit", "data: 0123\ndata: 567\n\n", [event("0123\n567")],
        configuration: .init(maximumEventSize: 8)),
    ParserVector(
        "event too large", "data: 0123\ndata: 5678\n\n", [], error: .eventTooLarge(limit: 8),
        configuration: .init(maximumEventSize: 8)),
    ParserVector(
        "one long data line too large", "data: 0123456789\n\n", [], error: .eventTooLarge(limit: 8),
        configuration: .init(maximumEventSize: 8)),
]

@Suite struct SSEParserVectorTests {
    @Test(arguments: parserVectors)
    func vectorFedWholeByteByByteAndSplitEverywhere(_ vector: ParserVector) {
        for chunks in Feeding.chunkings(vector.input) {
            let (outputs, error, parser) = Feeding.parse(chunks, configuration: vector.configuration)
            #expect(outputs == vector.expected, "chunks: \(chunks.map(\.count))")
            #expect(error == vector.error, "chunks: \(chunks.map(\.count))")
            if let lastEventId = vector.lastEventId {
                #expect(parser.lastEventId == lastEventId)
            }
        }
    }

    @Test func failedParserStaysFailedUntilReset() throws {
        var parser = SSEParser(configuration: .init(maximumLineLength: 4))
        #expect(throws: SSEParserError.lineTooLong(limit: 4)) { try parser.feed(Array(utf8: "event: long\n")) { _ in } }
        #expect(throws: SSEParserError.lineTooLong(limit: 4)) { try parser.feed(Array(utf8: "data\n\n")) { _ in } }
        parser.reset()
        #expect(try parser.parse(Array(utf8: "data\n\n")) == [.event(SSEEvent(data: ""))])
    }

    @Test func resetDiscardsThePendingEventAndKeepsTheLastEventId() throws {
        var parser = SSEParser()
        _ = try parser.parse(Array(utf8: "id: 3\ndata: a\n\nid: 4\ndata: half"))
        parser.reset()
        // A new stream: the half event is gone, a BOM is accepted again, the ID is still 3.
        let outputs = try parser.parse([0xEF, 0xBB, 0xBF] + Array(utf8: "data: b\n\n"))
        #expect(outputs == [.event(SSEEvent(data: "b", lastEventId: "3"))])
        #expect(parser.lastEventId == "3")
    }

    @Test func copiesOfAParserContinueIndependently() throws {
        var original = SSEParser()
        _ = try original.parse(Array(utf8: "data: shared\ndata: par"))
        var copy = original
        let fromOriginal = try original.parse(Array(utf8: "t one\n\n"))
        let fromCopy = try copy.parse(Array(utf8: "t two\n\n"))
        #expect(fromOriginal == [.event(SSEEvent(data: "shared\npart one"))])
        #expect(fromCopy == [.event(SSEEvent(data: "shared\npart two"))])
    }

    @Test func initialLastEventIdIsReported() throws {
        var parser = SSEParser(lastEventId: "41")
        #expect(try parser.parse(Array(utf8: "data: a\n\n")) == [.event(SSEEvent(data: "a", lastEventId: "41"))])
    }

    @Test func largeEventStreamsInManyChunks() throws {
        let payload = String(repeating: "0123456789abcdef", count: 1 << 16)  // 1 MiB
        let bytes = Array(utf8: "data: \(payload)\ndata: end\n\n")
        for chunkSize in [1, 7, 4096, 65_536] {
            var parser = SSEParser()
            var events: [SSEEvent] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + chunkSize, bytes.count)
                try parser.feed(Array(bytes[offset..<end])) { if case .event(let e) = $0 { events.append(e) } }
                offset = end
            }
            #expect(events.count == 1)
            #expect(events.first?.data == payload + "\nend")
        }
    }

    /// Buffers past 2 MiB move to their own huge-page mapping: values stay exact across that
    /// move, across a copy of the parser taken mid-event (copy on write), and in the line
    /// buffer (a long `event` field split across chunks).
    @Test func multiMegabyteEventsSurviveTheMoveToAMappingAndCopies() throws {
        let payload = String(repeating: "0123456789abcdef", count: 5 << 16)  // 5 MiB
        let type = String(repeating: "t", count: 3 << 20)  // 3 MiB line, buffered
        let bytes = Array(utf8: "event: \(type)\ndata: \(payload)\ndata: end\n\ndata: small\n\n")
        let half = bytes.count / 2
        var parser = SSEParser()
        var events: [SSEEvent] = []
        var offset = 0
        var copy: SSEParser?
        while offset < bytes.count {
            let end = min(offset + 65_536, bytes.count)
            if copy == nil && end > half { copy = parser }
            try parser.feed(Array(bytes[offset..<end])) { if case .event(let e) = $0 { events.append(e) } }
            offset = end
        }
        #expect(events.map(\.data) == [payload + "\nend", "small"])
        #expect(events.first?.type == type)
        // The copy saw the first half only; the rest fed to it gives the same events.
        var copied = try #require(copy)
        var copiedEvents: [SSEEvent] = []
        let resume = (half / 65_536) * 65_536
        try copied.feed(Array(bytes[resume...])) { if case .event(let e) = $0 { copiedEvents.append(e) } }
        #expect(copiedEvents == events)
    }
}
