import Foundation
import RealtimeTime
import Testing

@testable import EventSource

// Code as written against Recouse's EventSource 0.1.7 (timeouts named after
// URLSessionConfiguration's) and its later releases (settable `lastMessageId` and
// `readyState`). These functions are the compile check; the tests run them.

/// 0.1.7: both timeouts at creation, read back and changed through their properties.
func recouse017Timeouts() -> [EventSource] {
    let both = EventSource(timeoutIntervalForRequest: 30, timeoutIntervalForResource: 600)
    let dataOnly = EventSource(mode: .dataOnly, timeoutIntervalForRequest: 45)
    var resourceOnly = EventSource(timeoutIntervalForResource: 120)
    resourceOnly.timeoutIntervalForRequest = 15
    resourceOnly.timeoutIntervalForResource = 240
    let parsed = EventSource(
        mode: .default, eventParser: CustomEventParser(), timeoutIntervalForRequest: 20,
        timeoutIntervalForResource: 40)
    return [both, dataOnly, resourceOnly, parsed]
}

/// Recouse: a task's last event ID and state are settable.
func recouseSettableTaskState(_ dataTask: EventSource.DataTask, storedId: String?) {
    if let storedId { dataTask.lastMessageId = storedId }
    if dataTask.readyState == .open { dataTask.readyState = .closed }
}

/// Recouse: `events()` is an `AsyncStream<EventSource.EventType>`; here `.asyncStream` names it.
func recouseAsyncStream(_ dataTask: EventSource.DataTask) async -> [String] {
    let stream: AsyncStream<EventSource.EventType> = dataTask.events().asyncStream
    var seen: [String] = []
    for await event in stream { seen.append(event.summary) }
    return seen
}

@Suite struct RecouseCompatibilityTests {
    @Test func asyncStreamDeliversTheSameEvents() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["id: 1\ndata: a\n\n", "data: b\n\n"]))])
        let task = EventSource(transport: .custom(transport)).dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1:9/s")!))
        #expect(await recouseAsyncStream(task) == ["open", "event(-,1,a)", "event(-,-,b)", "closed"])
        #expect(task.lastMessageId == "1")
    }

    @Test func cancellingAnAsyncStreamConsumerClosesTheConnection() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"], ending: .hang))])
        let task = EventSource(transport: .custom(transport)).dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1:9/s")!))
        let consumer = Task { await recouseAsyncStream(task) }
        while transport.bodies.isEmpty { try await Task.sleep(.milliseconds(5)) }
        consumer.cancel()
        _ = await consumer.value
        #expect(try #require(transport.bodies.first).isCancelled)
    }

    @Test func timeoutLabelsMapToTheIdleAndResourceTimeouts() {
        let sources = recouse017Timeouts()
        #expect(sources.map(\.timeoutIntervalForRequest) == [30, 45, 15, 20])
        #expect(sources.map(\.timeoutInterval) == [30, 45, 15, 20])
        #expect(sources.map(\.timeoutIntervalForResource) == [600, 7 * 24 * 3600, 240, 40])
        // The current initializer keeps its meaning: an idle timeout, no resource limit.
        let current = EventSource(timeoutInterval: 60)
        #expect(current.timeoutIntervalForRequest == 60)
        #expect(current.timeoutIntervalForResource == .infinity)
    }

    @Test func idleTimeoutIsSentAsTheRequestsIdleTimeout() async throws {
        let transport = ScriptedHTTPTransport([.success(.init())])
        var eventSource = EventSource(timeoutIntervalForRequest: 12, timeoutIntervalForResource: 600)
        eventSource.transport = .custom(transport)
        _ = await summaries(of: eventSource.dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1:9/s")!)))
        #expect(try #require(transport.requests.first).idleTimeout == .seconds(12))
    }

    @Test func settableTaskStateSeedsTheRequestAndCloses() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"]))])
        let task = EventSource(transport: .custom(transport)).dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1:9/s")!))
        recouseSettableTaskState(task, storedId: "17")
        #expect(task.lastMessageId == "17")
        #expect(await summaries(of: task) == ["open", "event(-,-,a)", "closed"])
        #expect(transport.requests.first?.headers.first(name: "Last-Event-ID") == "17")
    }
}
