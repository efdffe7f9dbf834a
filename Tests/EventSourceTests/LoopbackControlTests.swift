import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import EventSource

/// The data task's controls against real servers, as the SSE contract suite
/// (launchdarkly/sse-contract-tests) checks them: the default request headers, comments
/// (`RequireComment`: text without the colon, in order with events), `retry:`, and
/// "caller can trigger a restart" (a new request with `Last-Event-ID`, events flow again).
@Suite(.serialized) struct LoopbackControlTests {
    private func request(_ server: TestServer, _ path: String) -> URLRequest {
        URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
    }

    // MARK: - Default headers

    @Test(arguments: LoopbackTests.transports)
    func defaultHeadersAsTheContractSuiteChecks(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let task = EventSource(timeoutInterval: 10, transport: transport).dataTask(for: self.request(server, "/echo"))
        var headers: [String: String] = [:]
        var method = ""
        for await event in task.events() {
            if case .event(let event) = event, let data = event.data?.data(using: .utf8),
                let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                headers = payload["headers"] as? [String: String] ?? [:]
                method = payload["method"] as? String ?? ""
            }
        }
        #expect(method == "GET")
        #expect(headers["accept"] == "text/event-stream")
        #expect(headers["cache-control"] == "no-cache")
        #expect(headers["last-event-id"] == nil)
    }

    @Test func aiohttpSeesNoCacheUnlessTheRequestSetsItsOwn() async throws {
        let server = try await TestServer.start("sse_aiohttp_server.py")
        defer { server.stop() }
        func headers(_ request: URLRequest) async -> [String: String?] {
            var result: [String: String?] = [:]
            for await event in EventSource(timeoutInterval: 10).dataTask(for: request).events() {
                if case .event(let event) = event, let data = event.data?.data(using: .utf8),
                    let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                {
                    for (name, value) in payload { result[name] = value as? String }
                }
            }
            return result
        }
        let plain = await headers(self.request(server, "/headers"))
        #expect(plain["Cache-Control"] == "no-cache")
        #expect(plain["Accept"] == "text/event-stream")
        var own = self.request(server, "/headers")
        own.setValue("max-age=5", forHTTPHeaderField: "Cache-Control")
        own.setValue("abc", forHTTPHeaderField: "Last-Event-ID")
        let custom = await headers(own)
        #expect(custom["Cache-Control"] == "max-age=5")
        #expect(custom["Last-Event-ID"] == "abc")
    }

    // MARK: - Comments and retry

    @Test func commentsAndRetryFromTheRawServer() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        // `: hello`, `data: a`, `: inside`, `data: b`, an empty comment `:`.
        var elements: [String] = []
        let task = EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/comments"))
        for await element in task.events(including: .comments) { elements.append(element.summary) }
        #expect(elements == ["open", "comment(hello)", "comment(inside)", "event(-,-,a\nb)", "comment()", "closed"])
        // The first connection of /reconnect sends `retry: 50` before its event.
        elements = []
        let retry = EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/reconnect"))
        for await element in retry.events(including: .all) { elements.append(element.summary) }
        #expect(elements == ["open", "retry(50 ms)", "event(-,1,first)", "closed"])
    }

    @Test func starlettePingCommentsAreVisibleOnRequest() async throws {
        let server = try await TestServer.start("sse_starlette_server.py")
        defer { server.stop() }
        // `: ping - <time>` every 0.1 s for 0.5 s, then `data: pong`.
        var elements: [String] = []
        let task = EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/ping?seconds=0.5"))
        for await element in task.events(including: .comments) { elements.append(element.summary) }
        let comments = elements.filter { $0.hasPrefix("comment(") }
        #expect(comments.count >= 2)
        #expect(comments.allSatisfy { $0.hasPrefix("comment(ping - ") })
        #expect(elements.filter { !$0.hasPrefix("comment(") } == ["open", "event(-,-,pong)", "closed"])
        // Plain events() never shows them.
        var plain: [String] = []
        for await event in EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/ping?seconds=0.3")).events() {
            plain.append(event.summary)
        }
        #expect(plain == ["open", "event(-,-,pong)", "closed"])
    }

    // MARK: - Restart

    @Test(arguments: LoopbackTests.transports)
    func callerCanTriggerARestart(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        // Reconnection disabled (the default): the restart reconnects because the caller asks.
        let task = EventSource(timeoutInterval: 10, transport: transport).dataTask(for: self.request(server, "/restart"))
        var events: [String] = []
        for await event in task.events() {
            events.append(event.summary)
            if event.summary == "event(-,1,connection 1)" { task.restart() }
            if event.summary == "event(-,2,connection 2)" || events.count > 10 { break }
        }
        #expect(events == ["open", "event(-,1,connection 1)", "open", "event(-,2,connection 2)"])
        _ = try await server.waitForLine { $0 == "REQUEST GET /restart last-event-id=1 body=" }
        _ = try await server.waitForLine { $0 == "DISCONNECTED /restart" }
        #expect(
            server.lines.filter { $0.hasPrefix("REQUEST GET /restart") }
                == ["REQUEST GET /restart last-event-id=- body=", "REQUEST GET /restart last-event-id=1 body="])
    }

    @Test func restartFromAnotherTaskAgainstAiohttpWithRetryAndPings() async throws {
        let server = try await TestServer.start("sse_aiohttp_server.py")
        defer { server.stop() }
        // Reconnection after errors only 60 s later: what reconnects here is the restart.
        let policy = EventSource.ReconnectionPolicy.exponentialBackoff(initialDelay: 60, jitter: 0)
        let task = EventSource(timeoutInterval: 10, reconnectionPolicy: policy).dataTask(for: self.request(server, "/hold"))
        let consumer = Task {
            var elements: [String] = []
            for await element in task.events(including: .all) {
                elements.append(element.summary)
                if element.summary == "event(-,4,held 4)" || elements.count > 500 { break }
            }
            return elements
        }
        _ = try await server.waitForLine { $0 == "LAST-EVENT-ID -" }
        while task.lastMessageId != "2" { try await Task.sleep(.milliseconds(10)) }
        try await Task.sleep(.milliseconds(150))  // a few pings while the stream is idle
        task.restart()
        _ = try await server.waitForLine { $0 == "LAST-EVENT-ID 2" }
        let elements = await consumer.value
        #expect(
            elements.filter { !$0.hasPrefix("comment(") }
                == [
                    "open", "retry(50 ms)", "event(-,1,held 1)", "event(-,2,held 2)",
                    "open", "retry(50 ms)", "event(-,3,held 3)", "event(-,4,held 4)",
                ])
        #expect(elements.contains("comment(ping)"))
        #expect(elements.filter { $0.hasPrefix("comment(") }.allSatisfy { $0 == "comment(ping)" })
        _ = try await server.waitForLine { $0 == "DISCONNECTED /hold" }
    }
}
