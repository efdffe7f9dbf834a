import Foundation
import RealtimeHTTP
import RealtimeTime
import Testing

@testable import EventSource

@Suite struct DataTaskTests {
    private let url = URL(string: "http://127.0.0.1:9/stream")!

    private func source(
        _ transport: ScriptedHTTPTransport, mode: EventSource.Mode = .default,
        policy: EventSource.ReconnectionPolicy = .disabled
    ) -> EventSource {
        EventSource(mode: mode, reconnectionPolicy: policy, transport: .custom(transport))
    }

    @Test func opensDeliversEventsAndCloses() async {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\nid: 1\nevent: add\nda", "ta: b\r\n\r\n"]))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        #expect(task.readyState == .none)
        let events = await summaries(of: task)
        #expect(events == ["open", "event(-,-,a)", "event(add,1,b)", "closed"])
        #expect(task.readyState == .closed)
        #expect(task.lastMessageId == "1")
    }

    @Test func addsEventStreamHeadersAndKeepsTheCallersRequest() async throws {
        let transport = ScriptedHTTPTransport([.success(.init())])
        var request = URLRequest(url: self.url)
        request.httpMethod = "POST"
        request.httpBody = Data("{\"q\":1}".utf8)
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        _ = await summaries(of: self.source(transport).dataTask(for: request))
        let sent = try #require(transport.requests.first)
        #expect(sent.method == "POST")
        #expect(sent.body == Array("{\"q\":1}".utf8))
        #expect(sent.headers.first(name: "Accept") == "text/event-stream")
        #expect(sent.headers.values(name: "Cache-Control") == ["no-cache"])
        #expect(sent.headers.first(name: "Authorization") == "Bearer t")
        #expect(!sent.headers.contains(name: "Last-Event-ID"))
        #expect(sent.idleTimeout == .seconds(300))
    }

    @Test func noContentClosesWithoutError() async {
        let transport = ScriptedHTTPTransport([.success(.init(status: 204, headers: [:]))])
        #expect(await summaries(of: self.source(transport).dataTask(for: URLRequest(url: self.url))) == ["closed"])
    }

    @Test func errorStatusReportsTheBodyThenCloses() async {
        let transport = ScriptedHTTPTransport([
            .success(
                .init(
                    status: 503, headers: ["Content-Type": "text/plain"],
                    chunks: ["try ", "later"]))
        ])
        let events = await summaries(of: self.source(transport).dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["error(503,try later)", "closed"])
    }

    @Test func wrongContentTypeIsAnError() async {
        let transport = ScriptedHTTPTransport([.success(.init(headers: ["Content-Type": "application/json"], chunks: ["{}"]))])
        let events = await summaries(of: self.source(transport).dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["error(200,{})", "closed"])
    }

    @Test func contentTypeParametersAreAccepted() async {
        let transport = ScriptedHTTPTransport([
            .success(
                .init(
                    headers: ["content-type": "Text/Event-Stream; charset=utf-8"],
                    chunks: ["data: x\n\n"]))
        ])
        let events = await summaries(of: self.source(transport).dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["open", "event(-,-,x)", "closed"])
    }

    @Test func networkFailureIsAURLError() async {
        let transport = ScriptedHTTPTransport([.failure(HTTPClientError(.network(.connectionRefused), "refused"))])
        let events = await summaries(of: self.source(transport).dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["error(url \(URLError.Code.cannotConnectToHost.rawValue))", "closed"])
    }

    @Test func idleTimeoutMidStreamIsReported() async {
        let transport = ScriptedHTTPTransport([
            .success(
                .init(
                    chunks: ["data: a\n\n"],
                    ending: .failure(HTTPClientError(.timedOut, "idle"))))
        ])
        let events = await summaries(of: self.source(transport).dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["open", "event(-,-,a)", "error(url \(URLError.Code.timedOut.rawValue))", "closed"])
    }

    @Test func secondEventsCallYieldsAlreadyConsumed() async {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"]))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        let first = task.events()
        #expect(await summaries(of: task) == ["error(alreadyConsumed)"])
        var iterator = first.makeAsyncIterator()
        #expect(await iterator.next()?.summary == "open")
        // A second iterator of the first sequence is refused too.
        var other = first.makeAsyncIterator()
        #expect(await other.next()?.summary == "error(alreadyConsumed)")
        #expect(await other.next() == nil)
    }

    @Test func breakingOutOfTheLoopClosesTheConnection() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"], ending: .hang))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        for await event in task.events() {
            if case .event = event { break }
        }
        let body = try #require(transport.bodies.first)
        #expect(body.isCancelled)
        #expect(task.readyState == .closed)
    }

    @Test func cancelEndsAWaitingSequence() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"], ending: .hang))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        let consumer = Task { await summaries(of: task) }
        while transport.bodies.isEmpty { try await Task.sleep(.milliseconds(5)) }
        try await Task.sleep(.milliseconds(20))
        task.cancel()
        #expect(await consumer.value == ["open", "event(-,-,a)"])
        #expect(try #require(transport.bodies.first).isCancelled)
        #expect(task.readyState == .closed)
    }

    @Test func cancellingTheConsumingTaskClosesTheConnection() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"], ending: .hang))])
        let task = self.source(transport).dataTask(for: URLRequest(url: self.url))
        let consumer = Task { await summaries(of: task) }
        while transport.bodies.isEmpty { try await Task.sleep(.milliseconds(5)) }
        consumer.cancel()
        _ = await consumer.value
        #expect(try #require(transport.bodies.first).isCancelled)
    }

    @Test func reconnectsWithLastEventIdAndRetry() async throws {
        let transport = ScriptedHTTPTransport([
            .success(.init(chunks: ["retry: 10\nid: 7\ndata: a\n\n"])),
            .success(.init(chunks: ["data: b\n\n"], ending: .failure(HTTPClientError(.network(.connectionReset), "reset")))),
            .success(.init(status: 204, headers: [:])),
        ])
        // A POST is sent again only because the policy says so (it would not by default).
        let policy = EventSource.ReconnectionPolicy.exponentialBackoff(
            initialDelay: 5, maximumDelay: 0.05, jitter: 0, reconnectsNonIdempotentRequests: true,
            prepareRequest: { request, attempt in
                var request = request
                request.setValue("token-\(attempt)", forHTTPHeaderField: "Authorization")
                return request
            })
        var request = URLRequest(url: self.url)
        request.httpMethod = "POST"
        request.httpBody = Data("body".utf8)
        let task = self.source(transport, policy: policy).dataTask(for: request)
        let events = await summaries(of: task)
        #expect(
            events == [
                "open", "event(-,7,a)", "open", "event(-,-,b)",
                "error(url \(URLError.Code.networkConnectionLost.rawValue))", "closed",
            ])
        let sent = transport.requests
        #expect(sent.count == 3)
        #expect(sent.map { $0.headers.first(name: "Last-Event-ID") } == [nil, "7", "7"])
        #expect(sent.map { $0.headers.first(name: "Authorization") } == [nil, "token-1", "token-2"])
        #expect(sent.allSatisfy { $0.body == Array("body".utf8) && $0.method == "POST" })
    }

    @Test func givesUpAfterMaximumAttempts() async {
        let refused = HTTPClientError(.network(.connectionRefused), "refused")
        let transport = ScriptedHTTPTransport([.failure(refused), .failure(refused), .failure(refused)])
        let policy = EventSource.ReconnectionPolicy.exponentialBackoff(initialDelay: 0.001, jitter: 0, maximumAttempts: 2)
        let events = await summaries(of: self.source(transport, policy: policy).dataTask(for: URLRequest(url: self.url)))
        let refusedError = "error(url \(URLError.Code.cannotConnectToHost.rawValue))"
        #expect(events == [refusedError, refusedError, refusedError, "closed"])
        #expect(transport.requests.count == 3)
    }

    @Test func eventLargerThanTheLimitFailsTheConnection() async throws {
        let transport = ScriptedHTTPTransport([
            .success(
                .init(
                    chunks: ["data: " + String(repeating: "x", count: 100) + "\n\n"],
                    ending: .hang))
        ])
        var eventSource = self.source(transport)
        eventSource.maximumEventSize = 64
        let events = await summaries(of: eventSource.dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["open", "error(EventStreamLimitError)", "closed"])
        #expect(try #require(transport.bodies.first).isCancelled)
    }

    @Test func dataOnlyModeKeepsThePayloadWhole() async {
        let transport = ScriptedHTTPTransport([
            .success(
                .init(chunks: [
                    ": ping\n\ndata: {\"a\":\n", "data: 1}\n\n", "data: [DONE]\r\n\r\n", "event: x\n\n",
                ]))
        ])
        let events = await summaries(of: self.source(transport, mode: .dataOnly).dataTask(for: URLRequest(url: self.url)))
        #expect(events == ["open", "event(-,-,{\"a\":\ndata: 1})", "event(-,-,[DONE])", "event(x,-,nil)", "closed"])
    }

    @Test func customParserReceivesEveryChunkAndSetsTheLastId() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["upd|4|x|f\nad", "d|5|y\n"]))])
        let eventSource = EventSource(eventParser: CustomEventParser(), transport: .custom(transport))
        let task = eventSource.dataTask(for: URLRequest(url: self.url))
        var custom: [CustomEvent] = []
        for await event in task.events() {
            if case .event(let event) = event, let event = event as? CustomEvent { custom.append(event) }
        }
        #expect(custom.map(\.data) == ["x", "y"])
        #expect(custom.first?.customField == "f")
        #expect(task.lastMessageId == "5")
    }

    @Test func callersLastEventIdIsTheStartingPoint() async throws {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"]))])
        var request = URLRequest(url: self.url)
        request.setValue("41", forHTTPHeaderField: "Last-Event-ID")
        let task = self.source(transport).dataTask(for: request)
        #expect(task.lastMessageId == "41")
        _ = await summaries(of: task)
        #expect(transport.requests.first?.headers.first(name: "Last-Event-ID") == "41")
        #expect(task.lastMessageId == "41")
    }
}
