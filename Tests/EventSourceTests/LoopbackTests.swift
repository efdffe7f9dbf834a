import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import EventSource

/// EventSource against real servers on 127.0.0.1: a raw asyncio server for edge cases,
/// aiohttp-sse and sse-starlette. Each test starts its own server process; the suite runs
/// serialized only to keep a loaded machine's timing margins (idle timeouts) meaningful.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct LoopbackTests {
    private func request(_ server: TestServer, _ path: String) -> URLRequest {
        URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
    }

    private func events(_ server: TestServer, _ path: String, eventSource: EventSource = EventSource(timeoutInterval: 10))
        async -> [String]
    {
        await summaries(of: eventSource.dataTask(for: self.request(server, path)))
    }

    // MARK: - Raw server: connection semantics

    /// Both stacks; URLSession only in the REALTIME_NO_NATIVE_STACK build, which has no native one.
    static let transports: [EventSource.Transport] =
        BuildConfiguration.noNativeStack ? [.urlSession] : [.native, .urlSession]

    @Test(arguments: LoopbackTests.transports)
    func streamOpensDeliversAndCloses(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let task = EventSource(timeoutInterval: 10, transport: transport).dataTask(for: self.request(server, "/events?count=3&crlf=1"))
        let events = await summaries(of: task)
        #expect(events == ["open", "event(tick,1,event 1)", "event(tick,2,event 2)", "event(tick,3,event 3)", "closed"])
        #expect(task.lastMessageId == "3")
        #expect(task.readyState == .closed)
    }

    @Test(arguments: LoopbackTests.transports)
    func errorStatusReportsCodeAndBody(transport: EventSource.Transport) async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        for code in [401, 404, 503] {
            let events = await self.events(server, "/status/\(code)", eventSource: EventSource(transport: transport))
            #expect(events == ["error(\(code),server says \(code))", "closed"])
        }
    }

    @Test func noContentClosesWithoutError() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        #expect(await self.events(server, "/status/204") == ["closed"])
    }

    @Test func wrongContentTypeIsAnError() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        #expect(await self.events(server, "/wrong-type") == ["error(200,{\"not\":\"a stream\"})", "closed"])
    }

    @Test func idleTimeoutFiresOnASilentServer() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let start = MonotonicInstant.now
        let events = await self.events(server, "/stall", eventSource: EventSource(timeoutInterval: 0.5))
        #expect(events == ["open", "event(-,-,before the stall)", "error(url \(URLError.Code.timedOut.rawValue))", "closed"])
        #expect(MonotonicInstant.now - start < .seconds(8))
        _ = try await server.waitForLine { $0 == "DISCONNECTED /stall" }
    }

    @Test func idleTimeoutNeverCutsAStreamThatKeepsSending() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        // Comments every 50 ms for 1.5 s against a 0.8 s idle timeout.
        let events = await self.events(server, "/keepalive?seconds=1.5", eventSource: EventSource(timeoutInterval: 0.8))
        #expect(events == ["open", "event(-,-,still here)", "closed"])
    }

    @Test func reconnectsWithLastEventIdHonouringRetry() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        // The server's `retry: 50` replaces the 10 s initial delay, so this finishes fast.
        let policy = EventSource.ReconnectionPolicy.exponentialBackoff(initialDelay: 10, maximumDelay: 10, jitter: 0)
        let start = MonotonicInstant.now
        let events = await self.events(server, "/reconnect", eventSource: EventSource(timeoutInterval: 10, reconnectionPolicy: policy))
        #expect(events == ["open", "event(-,1,first)", "open", "event(-,2,second)", "closed"])
        #expect(MonotonicInstant.now - start < .seconds(8))
        // The server prints each request line before answering; its pipe may lag behind.
        _ = try await server.waitForLine { $0.hasPrefix("REQUEST GET /reconnect last-event-id=2") }
        let requests = server.lines.filter { $0.hasPrefix("REQUEST") }
        #expect(requests.map { $0.components(separatedBy: " ")[3] } == ["last-event-id=-", "last-event-id=1", "last-event-id=2"])
    }

    @Test func breakingOutOfTheLoopDisconnects() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let task = EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/forever"))
        var received = 0
        for await event in task.events() {
            if case .event = event { received += 1 }
            if received == 3 { break }
        }
        _ = try await server.waitForLine(timeout: .seconds(5)) { $0 == "DISCONNECTED /forever" }
        #expect(task.readyState == .closed)
    }

    @Test func cancellingTheConsumerDisconnects() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let task = EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/forever"))
        let consumer = Task { await summaries(of: task, limit: 1_000_000) }
        _ = try await server.waitForLine { $0.hasPrefix("REQUEST GET /forever") }
        try await Task.sleep(.milliseconds(100))
        consumer.cancel()
        let events = await consumer.value
        #expect(!events.contains("closed"))
        _ = try await server.waitForLine(timeout: .seconds(5)) { $0 == "DISCONNECTED /forever" }
    }

    @Test func dataTaskCancelDisconnects() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let task = EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/forever"))
        let consumer = Task { await summaries(of: task, limit: 1_000_000) }
        _ = try await server.waitForLine { $0.hasPrefix("REQUEST GET /forever") }
        try await Task.sleep(.milliseconds(100))
        task.cancel()
        let events = await consumer.value
        #expect(!events.contains("closed"))
        _ = try await server.waitForLine(timeout: .seconds(5)) { $0 == "DISCONNECTED /forever" }
    }

    @Test func largeEventOfSeveralMebibytes() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let size = 6 << 20
        let task = EventSource(timeoutInterval: 10).dataTask(for: self.request(server, "/large?size=\(size)"))
        var sizes: [Int] = []
        for await event in task.events() {
            if case .event(let event) = event { sizes.append(event.data?.utf8.count ?? -1) }
        }
        #expect(sizes == [size, 5])
    }

    @Test func carriageReturnLineEndingsAndComments() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        #expect(await self.events(server, "/cr") == ["open", "event(a,-,one\ntwo)", "event(-,3,three)", "closed"])
        #expect(await self.events(server, "/comments") == ["open", "event(-,-,a\nb)", "closed"])
    }

    @Test func postSendsMethodBodyAndHeaders() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        var request = self.request(server, "/echo")
        request.httpMethod = "POST"
        request.httpBody = Data("{\"topics\":[\"news\"]}".utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        let task = EventSource(timeoutInterval: 10).dataTask(for: request)
        var payload: [String: Any] = [:]
        for await event in task.events() {
            if case .event(let event) = event, let data = event.data?.data(using: .utf8) {
                payload = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            }
        }
        let headers = payload["headers"] as? [String: String] ?? [:]
        #expect(payload["method"] as? String == "POST")
        #expect(payload["body"] as? String == "{\"topics\":[\"news\"]}")
        #expect(headers["accept"] == "text/event-stream")
        #expect(headers["cache-control"] == "no-cache")
        #expect(headers["authorization"] == "Bearer secret")
        #expect(headers["last-event-id"] == nil)
    }

    @Test func redirectsAndChunkedBodies() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let redirected = await self.events(server, "/redirect")
        #expect(redirected == ["open", "event(tick,1,event 1)", "closed"])
        let chunked = await self.events(server, "/chunked?count=3")
        #expect(chunked == ["open", "event(-,-,chunk 1)", "event(-,-,chunk 2)", "event(-,-,chunk 3)", "closed"])
    }

    /// Regression: when the response head and several chunks arrive in one read, every chunk
    /// is delivered (RealtimeHTTP's `HTTPConnectionBodySource.releaseIfComplete()` once kept
    /// only the first and the last, which made `/chunked` above fail at random).
    @Test func chunksArrivingWithTheHeadAreAllDelivered() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let events = await self.events(server, "/chunked?count=3&coalesce=1")
        #expect(events == ["open", "event(-,-,chunk 1)", "event(-,-,chunk 2)", "event(-,-,chunk 3)", "closed"])
    }

    @Test func connectionRefusedIsANetworkError() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let port = server.port
        server.stop()
        let task = EventSource(timeoutInterval: 5).dataTask(for: URLRequest(url: URL(string: "http://127.0.0.1:\(port)/events")!))
        #expect(await summaries(of: task) == ["error(url \(URLError.Code.cannotConnectToHost.rawValue))", "closed"])
    }

    // MARK: - aiohttp-sse

    @Test func aiohttpStream() async throws {
        let server = try await TestServer.start("sse_aiohttp_server.py")
        defer { server.stop() }
        let events = await self.events(server, "/events?count=3")
        #expect(events == ["open", "event(tick,1,aiohttp 1)", "event(tick,2,aiohttp 2)", "event(tick,3,aiohttp 3)", "closed"])
        #expect(await self.events(server, "/multiline") == ["open", "event(-,-,line 1\nline 2\nline 3)", "closed"])
    }

    @Test func seedLiveDataMonitorResumesFromTheLastEventId() async throws {
        let server = try await TestServer.start("sse_aiohttp_server.py")
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/resume")!
        let monitor = LiveDataMonitor()
        await monitor.connect(to: url)
        _ = try await server.waitForLine { $0 == "LAST-EVENT-ID -" }
        // The monitor has seen the whole stream (ids 1...5) when its data task's last id is 5:
        // that, not a sleep, says when to reconnect.
        let deadline = MonotonicInstant.now + .seconds(30)
        var seen = await monitor.lastEventIdForTests
        while seen != "5" && MonotonicInstant.now < deadline {
            try await Task.sleep(.milliseconds(10))
            seen = await monitor.lastEventIdForTests
        }
        #expect(seen == "5")
        // Reconnecting sends it as Last-Event-ID, so the server resumes after 5.
        await monitor.connect(to: url)
        _ = try await server.waitForLine(timeout: .seconds(30)) { $0 == "LAST-EVENT-ID 5" }
        await monitor.disconnect()
    }

    /// What the README example's task can be seen to do from outside (it only prints): it
    /// requests the stream, and its task ends once the server has closed the stream (its
    /// `for await` loop ends with `.closed`; the suite's time limit catches a task that does not).
    @Test func seedReadmeExampleRequestsTheStreamAndEndsWhenTheServerClosesIt() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        await seedReadmeConnect(urlRequest: self.request(server, "/events?count=2")).value
        // (Waited for: the server's output is read on another thread and may lag the client.)
        _ = try await server.waitForLine(timeout: .seconds(30)) { $0.hasPrefix("REQUEST GET /events") }
    }

    @Test func seedResilientClientStopsRetryingOnCancel() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        defer { server.stop() }
        let client = ResilientSSEClient()
        // A 503, which the client retries (after 2 s, then 4, 8...): only the cancel stops it.
        await client.connect(to: URL(string: "http://127.0.0.1:\(server.port)/status/503")!)
        let loop = try #require(await client.connectionTaskForTests)
        _ = try await server.waitForLine(timeout: .seconds(30)) { $0.hasPrefix("REQUEST GET /status/503") }
        await client.disconnect()
        // The retry loop ends (without the cancel it would run about a minute, its five retries),
        // and it made no other request.
        await loop.value
        #expect(server.lines.count(where: { $0.hasPrefix("REQUEST GET /status/503") }) == 1)
    }

    // MARK: - sse-starlette

    @Test func starletteStreamPingsAndPost() async throws {
        let server = try await TestServer.start("sse_starlette_server.py")
        defer { server.stop() }
        // uvicorn sends each event as its own HTTP chunk.
        let events = await self.events(server, "/events?count=2")
        #expect(events == ["open", "event(tick,1,starlette 1)", "event(tick,2,starlette 2)", "closed"])
        // Only `: ping` comments (every 0.1 s) for 1.5 s against a 0.8 s idle timeout: still open.
        #expect(
            await self.events(server, "/ping?seconds=1.5", eventSource: EventSource(timeoutInterval: 0.8))
                == ["open", "event(-,-,pong)", "closed"])
        var request = self.request(server, "/post")
        request.httpMethod = "POST"
        request.httpBody = Data("hello body".utf8)
        #expect(
            await summaries(of: EventSource(timeoutInterval: 10).dataTask(for: request))
                == ["open", "event(echo,-,hello body)", "closed"])
    }

    @Test func dataOnlyModeAgainstStarlette() async throws {
        let server = try await TestServer.start("sse_starlette_server.py")
        defer { server.stop() }
        var request = self.request(server, "/post")
        request.httpMethod = "POST"
        request.httpBody = Data("{\"choices\":[]}".utf8)
        // data-only reads the block whole: the `event:` line names the field, so data stays nil.
        let events = await summaries(of: EventSource(mode: .dataOnly, timeoutInterval: 10).dataTask(for: request))
        #expect(events == ["open", "event(echo\ndata: {\"choices\":[]},-,nil)", "closed"])
    }
}
