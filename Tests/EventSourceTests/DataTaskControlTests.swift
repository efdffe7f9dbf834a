import Foundation
import RealtimeHTTP
import RealtimeTime
import Testing

@testable import EventSource

/// The data task's controls: restart on demand, a settable last event ID and ready state,
/// comments and `retry:` for callers who ask, the resource timeout, the default headers.
/// Driven through the scripted transport; the loopback suite runs the same against servers.
@Suite struct DataTaskControlTests {
    private let url = URL(string: "http://127.0.0.1:9/stream")!

    private func source(
        _ transport: ScriptedHTTPTransport,
        policy: EventSource.ReconnectionPolicy = .disabled
    ) -> EventSource {
        EventSource(reconnectionPolicy: policy, transport: .custom(transport))
    }

    private static let tokenPolicy = EventSource.ReconnectionPolicy.exponentialBackoff(
        initialDelay: 60, maximumDelay: 60, jitter: 0,
        prepareRequest: { request, attempt in
            var request = request
            request.setValue("token-\(attempt)", forHTTPHeaderField: "Authorization")
            return request
        })

    // MARK: - Default headers

    @Test func cacheControlDefaultsToNoCache() async throws {
        let transport = ScriptedHTTPTransport([.success(.init())])
        _ = await summaries(of: self.source(transport).dataTask(for: URLRequest(url: self.url)))
        let sent = try #require(transport.requests.first)
        #expect(sent.headers.values(name: "Cache-Control") == ["no-cache"])
        #expect(sent.headers.values(name: "Accept") == ["text/event-stream"])
    }

    @Test func callersCacheControlIsKeptAlone() async throws {
        let transport = ScriptedHTTPTransport([.success(.init())])
        var request = URLRequest(url: self.url)
        request.setValue("max-age=0", forHTTPHeaderField: "cache-control")
        _ = await summaries(of: self.source(transport).dataTask(for: request))
        #expect(try #require(transport.requests.first).headers.values(name: "Cache-Control") == ["max-age=0"])
    }

    // MARK: - Restart

    @Test func restartFromTheLoopReconnectsNowWithLastEventIdAndPreparedRequest() async throws {
        let transport = ScriptedHTTPTransport([
            .success(.init(chunks: ["id: 1\ndata: a\n\ndata: also from the first\n\n"], ending: .hang)),
            .success(.init(chunks: ["data: b\n\n"], ending: .hang)),
        ])
        let task = self.source(transport, policy: Self.tokenPolicy).dataTask(for: URLRequest(url: self.url))
        var events: [String] = []
        let start = MonotonicInstant.now
        for await event in task.events() {
            events.append(event.summary)
            if event.summary == "event(-,1,a)" { task.restart() }
            if event.summary == "event(-,-,b)" || events.count > 10 { break }
        }
        // Events already decoded are delivered first; no error, no delay (the policy's is 60 s).
        #expect(events == ["open", "event(-,1,a)", "event(-,-,also from the first)", "open", "event(-,-,b)"])
        #expect(MonotonicInstant.now - start < .seconds(30))
        let sent = transport.requests
        #expect(sent.count == 2)
        #expect(sent.map { $0.headers.first(name: "Last-Event-ID") } == [nil, "1"])
        #expect(sent.map { $0.headers.first(name: "Authorization") } == [nil, "token-1"])
        #expect(try #require(transport.bodies.first).isCancelled)
    }

    @Test func restartFromAnotherTaskInterruptsAWaitingRead() async throws {
        let transport = ScriptedHTTPTransport([
            .success(.init(chunks: ["id: 5\ndata: a\n\n"], ending: .hang)),
            .success(.init(chunks: ["data: b\n\n"], ending: .hang)),
        ])
        // Reconnection disabled: a restart still reconnects, as the caller asked for it.
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        let consumer = Task { await summaries(of: task, limit: 4) }
        while task.lastMessageId != "5" { try await Task.sleep(.milliseconds(5)) }
        try await Task.sleep(.milliseconds(20))
        #expect(task.readyState == .open)
        task.restart()
        #expect(await consumer.value == ["open", "event(-,5,a)", "open", "event(-,-,b)"])
        #expect(transport.requests.map { $0.headers.first(name: "Last-Event-ID") } == [nil, "5"])
        #expect(try #require(transport.bodies.first).isCancelled)
    }

    @Test func restartEndsAReconnectionWait() async throws {
        let reset = HTTPClientError(.network(.connectionReset), "reset")
        let transport = ScriptedHTTPTransport([
            .success(.init(chunks: ["id: 2\ndata: a\n\n"], ending: .failure(reset))),
            .success(.init(chunks: ["data: b\n\n"], ending: .hang)),
        ])
        let task = self.source(transport, policy: Self.tokenPolicy).dataTask(for: URLRequest(url: self.url))
        let consumer = Task { await summaries(of: task, limit: 5) }
        // The policy waits 60 s after the reset; the restart cuts that short.
        while task.lastMessageId != "2" || task.readyState != .connecting {
            try await Task.sleep(.milliseconds(5))
        }
        try await Task.sleep(.milliseconds(20))
        task.restart()
        let lost = "error(url \(URLError.Code.networkConnectionLost.rawValue))"
        #expect(await consumer.value == ["open", "event(-,2,a)", lost, "open", "event(-,-,b)"])
        #expect(transport.requests.map { $0.headers.first(name: "Authorization") } == [nil, "token-1"])
    }

    @Test func restartAfterCloseOrBeforeIterationDoesNothing() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"]))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        task.restart()
        #expect(await summaries(of: task) == ["open", "event(-,-,a)", "closed"])
        task.restart()
        #expect(task.readyState == .closed)
        #expect(transport.requests.count == 1)
    }

    // MARK: - Settable lastMessageId and readyState (Recouse)

    @Test func settingLastMessageIdSeedsTheNextRequest() async throws {
        let transport = ScriptedHTTPTransport([
            .success(.init(chunks: ["id: 1\ndata: a\n\n"], ending: .hang)),
            .success(.init(chunks: ["data: b\n\n"], ending: .hang)),
        ])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        task.lastMessageId = "from-storage"
        #expect(task.lastMessageId == "from-storage")
        var events: [String] = []
        for await event in task.events() {
            events.append(event.summary)
            if event.summary == "event(-,1,a)" {
                #expect(task.lastMessageId == "1")
                task.lastMessageId = "chosen"
                task.restart()
            }
            if events.count == 4 { break }
        }
        #expect(events == ["open", "event(-,1,a)", "open", "event(-,-,b)"])
        #expect(transport.requests.map { $0.headers.first(name: "Last-Event-ID") } == ["from-storage", "chosen"])
        #expect(task.lastMessageId == "chosen")
    }

    @Test func settingAnEmptyLastMessageIdSendsNone() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"]))])
        var request = URLRequest(url: self.url)
        request.setValue("41", forHTTPHeaderField: "Last-Event-ID")
        let task = self.source(transport).dataTask(for: request)
        task.lastMessageId = ""
        _ = await summaries(of: task)
        #expect(try #require(transport.requests.first).headers.first(name: "Last-Event-ID") == nil)
    }

    @Test func settingReadyStateClosedCancels() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["id: 1\ndata: a\n\n"], ending: .hang))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        let consumer = Task { await summaries(of: task) }
        // The event is delivered (its id published), the read waits for more.
        while task.lastMessageId != "1" { try await Task.sleep(.milliseconds(5)) }
        task.readyState = .connecting  // not the caller's to set: nothing happens
        #expect(task.readyState == .open)
        task.readyState = .closed
        #expect(await consumer.value == ["open", "event(-,1,a)"])
        #expect(task.readyState == .closed)
        #expect(try #require(transport.bodies.first).isCancelled)
    }

    // MARK: - Comments and retry

    @Test func extrasArriveInStreamOrder() async throws {
        let transport = ScriptedHTTPTransport([
            .success(
                .init(chunks: [
                    ": hi\n", "retry: 20\ndata: a\n:x", "\n\nid: 3\ndata: b\n", "\n: tail\n",
                ]))
        ])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        var elements: [String] = []
        for await element in task.events(including: .all) {
            elements.append(element.summary)
        }
        #expect(
            elements == [
                "open", "comment(hi)", "retry(20 ms)", "comment(x)", "event(-,-,a)", "event(-,3,b)",
                "comment(tail)", "closed",
            ])
        #expect(task.lastMessageId == "3")
    }

    @Test func onlyTheExtrasAskedForAreDelivered() async throws {
        let chunks = [": hi\nretry: 20\ndata: a\n\n"]
        let comments = ScriptedHTTPTransport([.success(.init(chunks: chunks))])
        var elements: [String] = []
        for await element in self.source(comments).dataTask(for: URLRequest(url: self.url)).events(including: .comments) {
            elements.append(element.summary)
        }
        #expect(elements == ["open", "comment(hi)", "event(-,-,a)", "closed"])
        let retry = ScriptedHTTPTransport([.success(.init(chunks: chunks))])
        elements = []
        for await element in self.source(retry).dataTask(for: URLRequest(url: self.url)).events(including: .retry) {
            elements.append(element.summary)
        }
        #expect(elements == ["open", "retry(20 ms)", "event(-,-,a)", "closed"])
    }

    @Test func extendedStreamIsUnicastWithEvents() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"]))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        let events = task.events()
        var second: [String] = []
        for await element in task.events(including: .all) { second.append(element.summary) }
        #expect(second == ["error(alreadyConsumed)"])
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next()?.summary == "open")
    }

    // MARK: - Recouse 0.1.7 timeouts

    @Test func resourceTimeoutEndsALongConnection() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"], ending: .hang))])
        var eventSource = EventSource(timeoutIntervalForRequest: 10, timeoutIntervalForResource: 0.3)
        eventSource.transport = .custom(transport)
        #expect(eventSource.timeoutInterval == 10)
        let start = MonotonicInstant.now
        let events = await summaries(of: eventSource.dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["open", "event(-,-,a)", "error(url \(URLError.Code.timedOut.rawValue))", "closed"])
        #expect(MonotonicInstant.now - start >= .milliseconds(300))
        #expect(try #require(transport.bodies.first).isCancelled)
    }

    @Test func resourceTimeoutIsFollowedByTheReconnectionPolicy() async throws {
        let transport = ScriptedHTTPTransport([
            .success(.init(chunks: ["id: 9\ndata: a\n\n"], ending: .hang)),
            .success(.init(status: 204, headers: [:])),
        ])
        var eventSource = EventSource(timeoutIntervalForResource: 0.2)
        eventSource.transport = .custom(transport)
        eventSource.reconnectionPolicy = .exponentialBackoff(initialDelay: 0.01, jitter: 0)
        let events = await summaries(of: eventSource.dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["open", "event(-,9,a)", "error(url \(URLError.Code.timedOut.rawValue))", "closed"])
        #expect(transport.requests.map { $0.headers.first(name: "Last-Event-ID") } == [nil, "9"])
    }
}

extension EventSource.StreamElement {
    /// A short, comparable form for assertions.
    var summary: String {
        if let comment = self.comment { return "comment(\(comment))" }
        if let retry = self.retryInterval { return "retry(\(Int((retry * 1000).rounded())) ms)" }
        return self.event?.summary ?? "empty"
    }
}
