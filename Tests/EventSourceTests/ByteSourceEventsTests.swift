import Foundation
import RealtimeHTTP
import Testing

@testable import EventSource

/// `serverSentEvents()` on byte sequences, sans-I/O: every input is fed whole, byte by byte
/// and split in two at every offset, as each kind of element (`UInt8`, `[UInt8]`,
/// `ArraySlice<UInt8>`, `Data`), and must give what a ``EventSource/DataTask`` gives for the
/// same body.
@Suite struct ByteSourceEventsTests {
    /// The element kinds a byte sequence may have.
    enum Kind: String, CaseIterable, Sendable {
        case bytes, arrays, slices, data
    }

    /// The events (or `error(limit,description)`) of `chunks` read as `kind`.
    static func summaries(_ chunks: [[UInt8]], as kind: Kind, maximumEventSize: Int = 16 << 20, failure: (any Error)? = nil)
        async -> [String]
    {
        var result: [String] = []
        func collect<S: AsyncSequence>(_ events: S) async where S.Element == ServerEvent {
            do {
                for try await event in events { result.append(EventSource.EventType.event(event).summary) }
            } catch let error as EventStreamLimitError {
                result.append("error(\(error.limit),\(error.description))")
            } catch {
                result.append("thrown(\(error))")
            }
        }
        switch kind {
        case .bytes:
            await collect(ChunkSequence(chunks.flatMap { $0 }, failure: failure).serverSentEvents(maximumEventSize: maximumEventSize))
        case .arrays:
            await collect(ChunkSequence(chunks, failure: failure).serverSentEvents(maximumEventSize: maximumEventSize))
        case .slices:
            // Slices of a larger array, so their indices do not start at zero.
            let slices = chunks.map { chunk in (([0x78] + chunk + [0x78])[1...chunk.count]) }
            await collect(ChunkSequence(slices, failure: failure).serverSentEvents(maximumEventSize: maximumEventSize))
        case .data:
            await collect(ChunkSequence(chunks.map { Data($0) }, failure: failure).serverSentEvents(maximumEventSize: maximumEventSize))
        }
        return result
    }

    /// What a data task reports for a body of `chunks`, in the same form (no `open`/`closed`).
    static func dataTaskSummaries(_ chunks: [[UInt8]], maximumEventSize: Int = 16 << 20) async -> [String] {
        let transport = ScriptedHTTPTransport([.success(.init(byteChunks: chunks))])
        var eventSource = EventSource(transport: .custom(transport))
        eventSource.maximumEventSize = maximumEventSize
        var result: [String] = []
        for await event in eventSource.dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1/")!)).events() {
            switch event {
            case .open, .closed: break
            case .error(let error as EventStreamLimitError): result.append("error(\(error.limit),\(error.description))")
            default: result.append(event.summary)
            }
        }
        return result
    }

    static func chunkings(_ bytes: [UInt8]) -> [[[UInt8]]] {
        var result: [[[UInt8]]] = [[bytes], bytes.map { [$0] }]
        for offset in 1..<bytes.count {
            result.append([Array(bytes[..<offset]), Array(bytes[offset...])])
        }
        return result
    }

    /// A BOM, CR, LF and CRLF endings (a CRLF split by a chunk boundary in the splits), `id`
    /// persistence and clearing, comments, `retry`, unknown fields, a field without colon,
    /// ill-formed UTF-8 and a character split across chunks, and an unfinished last event.
    static let corpus: [UInt8] =
        [0xEF, 0xBB, 0xBF] + Array(": hello\r\nid: 1\r\nevent: add\r\ndata:  two spaces\r\ndata\r\n\r\n".utf8)
        + Array("data: no id field\rretry: 2500\r\rid\nfoo: bar\ndata:x\n\n".utf8)
        + Array("data: caf\u{E9} ".utf8) + [0xFF, 0xC3] + Array("\n\ndata: unfinished".utf8)

    static let expected = [
        "event(add,1, two spaces\n)", "event(-,-,no id field)", "event(-,,x)", "event(-,-,café \u{FFFD}\u{FFFD})",
    ]

    @Test(arguments: Kind.allCases)
    func everyChunkingGivesTheDataTaskEvents(kind: Kind) async {
        #expect(await Self.dataTaskSummaries([Self.corpus]) == Self.expected)
        for chunks in Self.chunkings(Self.corpus) {
            let events = await Self.summaries(chunks, as: kind)
            #expect(events == Self.expected, "chunks \(chunks.map(\.count))")
        }
    }

    @Test(arguments: Kind.allCases)
    func anEventOverTheLimitThrowsTheDataTaskError(kind: Kind) async {
        let input = Array("data: ok\n\ndata: 0123456789\ndata: 0123456789\n\n".utf8)
        let expected = await Self.dataTaskSummaries([input], maximumEventSize: 16)
        #expect(expected.count == 2 && expected[0] == "event(-,-,ok)" && expected[1].hasPrefix("error(16,"))
        for chunks in Self.chunkings(input) {
            let events = await Self.summaries(chunks, as: kind, maximumEventSize: 16)
            #expect(events == expected, "chunks \(chunks.map(\.count))")
        }
    }

    /// A line that never ends fails once it passes the limit, before the bytes end: the
    /// parser never holds more than the limit.
    @Test(arguments: Kind.allCases)
    func anEndlessLineThrowsAtTheLimit(kind: Kind) async {
        let input = Array("data: ok\n\n: ".utf8) + [UInt8](repeating: 0x61, count: 200)
        let expected = await Self.dataTaskSummaries([input], maximumEventSize: 64)
        #expect(expected == ["event(-,-,ok)", "error(64,event-stream line longer than 128 bytes)"])
        for chunks in [[input], input.map { [$0] }] {
            let events = await Self.summaries(chunks, as: kind, maximumEventSize: 64)
            #expect(events == expected)
        }
    }

    @Test(arguments: Kind.allCases)
    func theBaseSequenceErrorIsRethrownAfterTheEventsBeforeIt(kind: Kind) async {
        let chunks = [Array("data: 1\n\ndata: 2\n".utf8), Array("\ndata: cut".utf8)]
        let events = await Self.summaries(chunks, as: kind, failure: URLError(.networkConnectionLost))
        #expect(events == ["event(-,-,1)", "event(-,-,2)", "thrown(\(URLError(.networkConnectionLost)))"])
    }

    @Test func afterAnErrorTheIteratorEnds() async throws {
        var iterator = ChunkSequence([Array("data: 0123456789\n".utf8), Array("data: more\n\n".utf8)])
            .serverSentEvents(maximumEventSize: 4).makeAsyncIterator()
        await #expect(throws: EventStreamLimitError.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    /// Single bytes are parsed at each line end: an event is yielded as soon as its empty line
    /// arrives, while the byte sequence is still open.
    @Test func singleBytesYieldAnEventAtItsEmptyLine() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: UInt8.self)
        var iterator = stream.serverSentEvents().makeAsyncIterator()
        for byte in "data: first\r\n\r".utf8 { continuation.yield(byte) }
        #expect(try await iterator.next() == ServerEvent(data: "first"))
        for byte in "\ndata: second\n\n".utf8 { continuation.yield(byte) }
        #expect(try await iterator.next() == ServerEvent(data: "second"))
        continuation.finish()
        #expect(try await iterator.next() == nil)
    }

    @Test(arguments: Kind.allCases)
    func theIncludingVariantDeliversCommentsAndRetryInOrder(kind: Kind) async throws {
        let input = Array(": one\ndata: a\nretry: 1500\n:two\n\nretry: x\n: three\ndata: b\n\n".utf8)
        for chunks in Self.chunkings(input) {
            var elements: [String] = []
            func collect<S: AsyncSequence>(_ sequence: S) async throws where S.Element == EventSource.StreamElement {
                for try await element in sequence {
                    if let comment = element.comment {
                        elements.append("comment(\(comment))")
                    } else if let retry = element.retryInterval {
                        elements.append("retry(\(retry))")
                    } else if let event = element.event {
                        elements.append(event.summary)
                    }
                }
            }
            switch kind {
            case .bytes: try await collect(ChunkSequence(chunks.flatMap { $0 }).serverSentEvents(including: .all))
            case .arrays: try await collect(ChunkSequence(chunks).serverSentEvents(including: .all))
            case .slices: try await collect(ChunkSequence(chunks.map { $0[...] }).serverSentEvents(including: .all))
            case .data: try await collect(ChunkSequence(chunks.map { Data($0) }).serverSentEvents(including: .all))
            }
            #expect(
                elements == [
                    "comment(one)", "retry(1.5)", "comment(two)", "event(-,-,a)", "comment(three)", "event(-,-,b)",
                ], "chunks \(chunks.map(\.count))")
        }
        var retryOnly: [TimeInterval] = []
        for try await element in ChunkSequence([input]).serverSentEvents(including: .retry) {
            #expect(element.comment == nil)
            if let retry = element.retryInterval { retryOnly.append(retry) }
        }
        #expect(retryOnly == [1.5])
    }

    /// `ServerEvent.parse(from:)` runs the same parser: it gives the stream's first event for
    /// any block with data, and keeps Recouse's reading of a block without data.
    @Test func staticParseAgreesWithTheStream() async throws {
        let blocks = [
            "data: a\r\ndata: b\r\n\r\n", "\u{FEFF}id: 7\nevent: e\ndata:  x\n\n", "data: caf\u{E9}\rid: 1\0\r\r",
            ": c\n\ndata: after a comment\n\n", "data\ndata\n\n",
        ]
        for block in blocks {
            let streamed = try await ChunkSequence([Array(block.utf8)]).serverSentEvents().first { _ in true }
            #expect(ServerEvent.parse(from: Data(block.utf8)) == streamed, "\(block.debugDescription)")
        }
        // A first block without data gives its fields (or nothing), never the next block's event.
        #expect(ServerEvent.parse(from: Data("event: add\n\ndata: next\n\n".utf8)) == ServerEvent(event: "add"))
        #expect(ServerEvent.parse(from: Data("foo: bar\n\ndata: next\n\n".utf8)) == nil)
        #expect(ServerEvent.parse(from: Data("retry: 5\n\ndata: next\n\n".utf8)) == nil)
        #expect(ServerEvent.parse(from: Data("id: 1\ndata:\n\n".utf8)) == ServerEvent(id: "1", data: ""))
        #expect(ServerEvent.parse(from: Data("data: no terminator".utf8)) == ServerEvent(data: "no terminator"))
        #expect(ServerEvent.parse(from: Data("data: cr at the end\r".utf8)) == ServerEvent(data: "cr at the end"))
        #expect(ServerEvent.parse(from: Data("unknown: 1\n\ndata: next\n\n".utf8), mode: .dataOnly) == nil)
    }
}

/// An `AsyncSequence` of given elements that ends, or fails with `failure`, after the last.
struct ChunkSequence<Element: Sendable>: AsyncSequence, Sendable {
    let elements: [Element]
    let failure: (any Error)?

    init(_ elements: [Element], failure: (any Error)? = nil) {
        self.elements = elements
        self.failure = failure
    }

    func makeAsyncIterator() -> Iterator { Iterator(elements: self.elements[...], failure: self.failure) }

    struct Iterator: AsyncIteratorProtocol {
        var elements: ArraySlice<Element>
        var failure: (any Error)?

        mutating func next() async throws -> Element? {
            if let first = self.elements.popFirst() { return first }
            if let failure = self.failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }
}
