import Foundation
import SSEProtocol
import Testing

@testable import EventSource

@Suite struct ServerEventParsingTests {
    @Test func serverEventIsAValueType() {
        var original = ServerEvent(id: "1", event: "add", data: "x")
        var copy = original
        copy.id = "2"
        copy.other = ["k": "v"]
        #expect(original.id == "1" && original.other == nil)
        #expect(copy == ServerEvent(id: "2", event: "add", data: "x", other: ["k": "v"]))
        original.id = nil
        original.event = nil
        #expect(original == ServerEvent(data: "x"))
        #expect(Set([original, ServerEvent(data: "x")]).count == 1)
        #expect(MemoryLayout<ServerEvent>.size <= 24)  // fits `any EVEvent` without a box
    }

    @Test func staticParseReadsTheFirstBlock() throws {
        let two = Data("\n\nid: 123\nevent: notification\ndata: {\"m\": 1}\n\nid: 124\ndata: x\n\n".utf8)
        let event = try #require(ServerEvent.parse(from: two, mode: .default))
        #expect(event == ServerEvent(id: "123", event: "notification", data: "{\"m\": 1}"))
        #expect(!event.isEmpty)
    }

    @Test func staticParseFollowsTheFieldRules() throws {
        let event = try #require(ServerEvent.parse(from: Data(": c\r\ndata:  a\r\ndata\r\nfoo: 1\r\nid: 9".utf8)))
        #expect(event == ServerEvent(id: "9", data: " a\n"))
        #expect(ServerEvent.parse(from: Data(": only a comment\n\n".utf8)) == nil)
        #expect(ServerEvent.parse(from: Data()) == nil)
        #expect(ServerEvent.parse(from: Data("id: 5\n\n".utf8)) == ServerEvent(id: "5"))
    }

    @Test func staticDataOnlyParseKeepsTheBlockWhole() throws {
        let event = try #require(ServerEvent.parse(from: Data("data:  {\"a\":\n  1}  \n\n".utf8), mode: .dataOnly))
        #expect(event.data == "{\"a\":\n  1}")
        #expect(ServerEvent.parse(from: Data("time: 12:00\n".utf8), mode: .dataOnly)?.time == "12:00")
        #expect(ServerEvent.parse(from: Data("hello\n".utf8), mode: .dataOnly)?.other == ["hello": ""])
        #expect(ServerEvent.parse(from: Data("unknown: x\n".utf8), mode: .dataOnly) == nil)
    }

    @Test func dataOnlyParserFedWholeByteByByteAndSplitEverywhere() throws {
        let input = Array(
            "\u{FEFF}: ping\r\n\r\ndata: {\"c\":\"\\ntest\\n\"}\r\n\r\nid: 3\n\ndata: a\ndata: b\rnext\r\r:x\nevent: e\n\ndata: tail".utf8)
        let expected = [
            ServerEvent(data: "{\"c\":\"\\ntest\\n\"}"),
            ServerEvent(id: "3"),
            ServerEvent(data: "a\ndata: b\nnext"),
            ServerEvent(event: "e"),
        ]
        var chunkings: [[[UInt8]]] = [[input], input.map { [$0] }]
        for offset in 1..<input.count { chunkings.append([Array(input[..<offset]), Array(input[offset...])]) }
        for chunks in chunkings {
            var parser = DataOnlyEventParser(maximumEventSize: 1 << 20)
            var events: [ServerEvent] = []
            for chunk in chunks { try parser.feed(chunk) { events.append($0) } }
            #expect(events == expected, "chunks \(chunks.map(\.count))")
        }
    }

    @Test func dataOnlyParserBoundsTheBlock() {
        var parser = DataOnlyEventParser(maximumEventSize: 8)
        #expect(throws: (any Error).self) { try parser.feed(Array("data: 0123456789".utf8)) { _ in } }
    }

    /// Found by the `sse-dataonly` fuzz target (limit 1, a 67-byte line): in one chunk the line
    /// failed with `lineTooLong(65)`, cut in pieces with `eventTooLarge(1)`. Now the same error
    /// whatever the chunks.
    @Test func dataOnlyParserFailsTheSameWayWhateverTheChunks() {
        let input = [UInt8](repeating: 0, count: 67) + Array("\r\n\r\n".utf8)
        var chunkings: [[[UInt8]]] = [[input], input.map { [$0] }]
        for offset in 1..<input.count { chunkings.append([Array(input[..<offset]), Array(input[offset...])]) }
        for chunks in chunkings {
            var parser = DataOnlyEventParser(maximumEventSize: 1)
            var failure: SSEParserError?
            var events: [ServerEvent] = []
            for chunk in chunks where failure == nil {
                do { try parser.feed(chunk) { events.append($0) } } catch { failure = error }
            }
            #expect(failure == .eventTooLarge(limit: 1), "chunks \(chunks.map(\.count))")
            #expect(events.isEmpty)
        }
    }
}
