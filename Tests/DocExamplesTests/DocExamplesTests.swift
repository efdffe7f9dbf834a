import EventSource
import Foundation
import Testing

/// The examples are compile checks; these run the few that need no server.
@Suite struct DocExamplesTests {
    @Test func offlineParsingExampleParses() {
        let event = ServerEvent.parse(from: Data("event: add\ndata: 1\n\n".utf8))
        #expect(event?.event == "add")
        #expect(event?.data == "1")
    }

    @Test func customParserExampleSplitsLinesAcrossChunks() {
        var parser = LineParser()
        #expect(parser.parse(Data("price|1".utf8)).isEmpty)
        let events = parser.parse(Data("0\nnews|hi\n".utf8))
        #expect(events.map(\.event) == ["price", "news"])
        #expect(events.map(\.data) == ["10", "hi"])
    }

    @Test func limitsExampleSetsTheLimits() {
        let eventSource = eventSourceLimits()
        #expect(eventSource.timeoutInterval == 60)
        #expect(eventSource.timeoutIntervalForResource == 3600)
        #expect(eventSource.maximumEventSize == 1 << 20)
    }
}
