import Foundation
import RealtimeHTTP
import TestSupport
import Testing

@testable import EventSource

/// What LLM streaming needs: a terminator that ends the stream cleanly, no reconnection of a
/// finite `POST`, and each event's data decoded with the caller's `JSONDecoder`.
@Suite struct LLMStreamTests {
    private let url = URL(string: "http://127.0.0.1:9/v1/chat/completions")!

    private var post: URLRequest {
        var request = URLRequest(url: self.url)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"stream":true}"#.utf8)
        return request
    }

    private func source(_ transport: ScriptedHTTPTransport, policy: EventSource.ReconnectionPolicy = .disabled)
        -> EventSource
    {
        EventSource(reconnectionPolicy: policy, transport: .custom(transport))
    }

    static let backoff = EventSource.ReconnectionPolicy.exponentialBackoff(initialDelay: 0.001, jitter: 0, maximumAttempts: 3)

    // MARK: - Terminator

    /// The terminator ends the stream at once: the body is never read to its end (it would
    /// hang), it is cancelled, `.closed` follows, and no reconnection happens even though the
    /// policy resumes ended streams.
    @Test(arguments: [
        ["data: 1\n\ndata: [DONE] soon\n\ndata: [DONE]\n\ndata: after\n\n"],
        Array("data: 1\n\ndata: [DONE] soon\n\ndata: [DONE]\n\n").map { String($0) },
    ])
    func theTerminatorEndsTheStreamCleanly(chunks: [String]) async {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: chunks, ending: .hang))])
        var eventSource = self.source(transport, policy: Self.backoff)
        eventSource.terminator = .data("[DONE]")
        let task = eventSource.dataTask(for: URLRequest(url: self.url))
        #expect(await summaries(of: task) == ["open", "event(-,-,1)", "event(-,-,[DONE] soon)", "closed"])
        #expect(task.readyState == .closed)
        #expect(transport.requests.count == 1)
        #expect(transport.bodies.first?.isCancelled == true)
    }

    @Test func anEventTypeTerminatorAndTheDataOnlyMode() async {
        let transport = ScriptedHTTPTransport([
            .success(.init(chunks: ["event: delta\ndata: a\n\nevent: message_stop\ndata: {}\n\n"], ending: .hang)),
            .success(.init(chunks: ["data: {\"x\":1}\n\ndata: [DONE]\n\n"], ending: .hang)),
        ])
        var byType = EventSource(transport: .custom(transport))
        byType.terminator = .eventType("message_stop")
        #expect(await summaries(of: byType.dataTask(for: self.post)) == ["open", "event(delta,-,a)", "closed"])
        var dataOnly = EventSource(mode: .dataOnly, transport: .custom(transport))
        dataOnly.terminator = .data("[DONE]")
        #expect(await summaries(of: dataOnly.dataTask(for: self.post)) == ["open", "event(-,-,{\"x\":1})", "closed"])
    }

    /// Without a terminator the `[DONE]` event is delivered as before (the seeds' loops check it).
    @Test func withoutATerminatorDoneIsAnEvent() async {
        let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: [DONE]\n\n"]))])
        #expect(await summaries(of: self.source(transport).dataTask(for: self.post)) == ["open", "event(-,-,[DONE])", "closed"])
    }

    /// A byte sequence stops at the terminator without reading further: this base would throw
    /// after its last chunk.
    @Test func aByteSequenceStopsAtTheTerminator() async throws {
        let chunks = [Array("data: 1\n\ndata: [DONE] soon\n\nda".utf8), Array("ta: [DONE]\n\ndata: after\n\n".utf8)]
        for split in [chunks, [chunks.flatMap { $0 }]] {
            let base = ChunkSequence(split, failure: URLError(.networkConnectionLost))
            var data: [String] = []
            for try await event in base.serverSentEvents(terminator: .data("[DONE]")) { data.append(event.data ?? "") }
            #expect(data == ["1", "[DONE] soon"])
            var elements = 0
            for try await _ in base.serverSentEvents(including: .all, terminator: .data("[DONE]")) { elements += 1 }
            #expect(elements == 2)
        }
    }

    // MARK: - No reconnection of a finite POST

    @Test func aPostIsNeverSentAgainUnlessThePolicySaysSo() async {
        for ending in [ScriptedHTTPTransport.Ending.endOfBody, .failure(HTTPClientError(.network(.connectionReset), "reset"))] {
            let transport = ScriptedHTTPTransport([.success(.init(chunks: ["data: a\n\n"], ending: ending))])
            let events = await summaries(of: self.source(transport, policy: Self.backoff).dataTask(for: self.post))
            #expect(events.first == "open" && events.last == "closed" && events.count <= 4, "\(events)")
            #expect(transport.requests.count == 1)
        }
        // A GET with the same policy reconnects; so does a POST when the policy allows it.
        var allowing = Self.backoff
        allowing.reconnectsNonIdempotentRequests = true
        for (request, policy) in [(URLRequest(url: self.url), Self.backoff), (self.post, allowing)] {
            let transport = ScriptedHTTPTransport([
                .success(.init(chunks: ["data: a\n\n"])), .success(.init(status: 204, headers: [:])),
            ])
            #expect(await summaries(of: self.source(transport, policy: policy).dataTask(for: request)) == ["open", "event(-,-,a)", "closed"])
            #expect(transport.requests.count == 2)
        }
    }

    @Test func idempotentMethods() {
        #expect(["GET", "get", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].allSatisfy { EventSourceStateMachine.isIdempotent(method: $0) })
        #expect(EventSourceStateMachine.isIdempotent(method: nil))
        #expect(!["POST", "PATCH", "CONNECT"].contains { EventSourceStateMachine.isIdempotent(method: $0) })
    }

    // MARK: - Decoding

    struct Chunk: Decodable, Equatable {
        var choiceCount: Int
        var createdAt: Date
    }

    @Test func dataDecodesWithTheCallersDecoder() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        let event = ServerEvent(data: #"{"choice_count": 2, "created_at": 1700000000}"#)
        #expect(try event.decodeData(as: Chunk.self, using: decoder) == Chunk(choiceCount: 2, createdAt: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(throws: DecodingError.self) { try event.decodeData(as: Chunk.self) }  // default keys
        #expect(throws: DecodingError.self) { try ServerEvent(data: "[DONE]").decodeData(as: Chunk.self, using: decoder) }
        #expect(throws: DecodingError.self) { try ServerEvent(event: "ping").decodeData(as: Chunk.self, using: decoder) }
        let any: any EVEvent = event
        let values: [String: Int] = try any.decodeData()
        #expect(values == ["choice_count": 2, "created_at": 1_700_000_000])
    }
}

/// The same against a local OpenAI-style server (`sse_llm_server.py`), on both transports.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct LLMStreamLoopbackTests {
    struct ChatChunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable { var content: String? }
            var delta: Delta
            var finishReason: String?
        }
        var choices: [Choice]
    }

    static let transports = ResponseHeadTests.transports

    /// The terminator ends a stream the server keeps open after `[DONE]`: the client closes
    /// the connection (the server sees it go) and the POST is sent once.
    @Test(arguments: LLMStreamLoopbackTests.transports)
    func aCompletionStreamsDecodesAndEndsAtDone(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_llm_server.py")
        defer { server.stop() }
        var eventSource = EventSource(timeoutInterval: 10, reconnectionPolicy: .exponentialBackoff(initialDelay: 0.01), transport: transport)
        eventSource.terminator = .data("[DONE]")
        let task = eventSource.dataTask(for: ResponseHeadTests.chatRequest(server, query: "?after_done=hold&decoy=1"))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        var text = ""
        var finishReasons: [String] = []
        var decoys = 0
        var log: [String] = []
        for await event in task.events() {
            log.append(event.summary.prefix(6).description)
            guard case .event(let event) = event else { continue }
            if event.data == "[DONE] is not the end" {
                decoys += 1
                continue
            }
            let chunk = try event.decodeData(as: ChatChunk.self, using: decoder)
            text += chunk.choices.first?.delta.content ?? ""
            finishReasons += chunk.choices.compactMap(\.finishReason)
        }
        #expect(text == "one two")
        #expect(finishReasons == ["stop"])
        #expect(decoys == 1)
        #expect(log.first == "open" && log.last == "closed" && !log.contains { $0.hasPrefix("error") })
        _ = try await server.waitForLine { $0 == "DISCONNECTED 1" }
        #expect(server.lines.filter { $0.hasPrefix("REQUEST") } == ["REQUEST POST 1"])
    }

    /// A POST cut before `[DONE]` reports the failure and is not sent again, although the
    /// policy reconnects GETs.
    @Test(arguments: LLMStreamLoopbackTests.transports)
    func aCutPostIsNotSentAgain(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_llm_server.py")
        defer { server.stop() }
        var eventSource = EventSource(timeoutInterval: 10, reconnectionPolicy: .exponentialBackoff(initialDelay: 0.01), transport: transport)
        eventSource.terminator = .data("[DONE]")
        let task = eventSource.dataTask(for: ResponseHeadTests.chatRequest(server, query: "?cut=1"))
        let events = await summaries(of: task)
        #expect(events.first == "open" && events.last == "closed" && events.count >= 3, "\(events)")
        #expect(task.readyState == .closed)
        // The task is over; a new request is the server's second.
        _ = await EventSource(timeoutInterval: 10, transport: transport)
            .dataTask(for: ResponseHeadTests.chatRequest(server)).events().first { _ in false }
        #expect(server.lines.filter { $0.hasPrefix("REQUEST") } == ["REQUEST POST 1", "REQUEST POST 2"])
    }
}
