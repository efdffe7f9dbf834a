import Foundation
import RealtimeHTTP
import TestSupport
import Testing

@testable import EventSource

/// `DataTask.response`: the response head, from the `.open` event on, on both transports.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct ResponseHeadTests {
    static let transports: [EventSource.Transport] =
        BuildConfiguration.noNativeStack ? [.urlSession] : [.native, .urlSession]

    static func chatRequest(_ server: TestServer, query: String = "", authorized: Bool = true) -> URLRequest {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/chat/completions\(query)")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if authorized { request.setValue("Bearer test-key", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(#"{"model":"m1","messages":[{"role":"user","content":"one two"}],"stream":true}"#.utf8)
        return request
    }

    @Test(arguments: ResponseHeadTests.transports)
    func theHeadIsThereFromOpenOn(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_llm_server.py")
        defer { server.stop() }
        let request = Self.chatRequest(server)
        let task = EventSource(timeoutInterval: 10, transport: transport).dataTask(for: request)
        #expect(task.response == nil)
        var sawOpen = false
        var events = 0
        for await event in task.events() {
            switch event {
            case .open:
                sawOpen = true
                let response = try #require(task.response)
                #expect(response.statusCode == 200)
                #expect(response.url == request.url)
                #expect(response.value(forHTTPHeaderField: "X-Request-Id") == "req-1")
                #expect(response.value(forHTTPHeaderField: "openai-model") == "m1")
                #expect(response.value(forHTTPHeaderField: "content-type")?.hasPrefix("text/event-stream") == true)
            case .event:
                events += 1
            case .error(let error):
                Issue.record("unexpected \(error)")
            case .closed:
                break
            }
        }
        #expect(sawOpen && events == 5)  // role, two words, stop, [DONE]
        #expect(task.response?.statusCode == 200)  // kept after the end
    }

    /// A refused head is there too, with the headers that say why (rate limits) or what came
    /// instead (a 200 that is not an event stream).
    @Test(arguments: ResponseHeadTests.transports)
    func aRefusedHeadIsThereAtItsError(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_llm_server.py")
        defer { server.stop() }
        for (query, status, header, value) in [
            ("?status=429", 429, "Retry-After", "1"), ("?plain=1", 200, "Content-Type", "application/json; charset=utf-8"),
        ] {
            let task = EventSource(timeoutInterval: 10, transport: transport).dataTask(for: Self.chatRequest(server, query: query))
            var seen: [String] = []
            for await event in task.events() {
                if case .error(EventSourceError.connectionError(let code, _)) = event {
                    #expect(code == status)
                    #expect(task.response?.statusCode == status)
                    #expect(task.response?.value(forHTTPHeaderField: header) == value)
                }
                seen.append(event.summary.prefix(9).description)
            }
            #expect(seen == ["error(\(status)", "closed"], "\(query)")
        }
    }

    @Test func repeatedFieldsAreJoinedAndAReconnectionReplacesTheHead() async throws {
        var first = ScriptedHTTPTransport.Reply(chunks: ["data: 1\n\n"])
        first.headers = ["Content-Type": "text/event-stream", "Link": "<a>", "link": "<b>", "X-Connection": "1"]
        var second = ScriptedHTTPTransport.Reply(chunks: ["data: 2\n\n"])
        second.headers = ["Content-Type": "text/event-stream", "X-Connection": "2"]
        let transport = ScriptedHTTPTransport([.success(first), .success(second)])
        let policy = EventSource.ReconnectionPolicy.exponentialBackoff(initialDelay: 0, jitter: 0, maximumAttempts: 1)
        let task = EventSource(reconnectionPolicy: policy, transport: .custom(transport))
            .dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1/stream")!))
        var heads: [String] = []
        for await event in task.events() {
            if case .event(let event) = event, let response = task.response {
                heads.append(
                    "\(event.data ?? ""):\(response.value(forHTTPHeaderField: "X-Connection") ?? "-"):"
                        + (response.value(forHTTPHeaderField: "Link") ?? "-"))
            }
        }
        #expect(heads == ["1:1:<a>, <b>", "2:2:-"])
    }
}
