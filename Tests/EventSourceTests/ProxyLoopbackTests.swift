import Foundation
import TestSupport
import Testing

@testable import EventSource

/// EventSource through real proxies (tinyproxy with Basic auth, pproxy SOCKS5 with
/// username/password) to aiohttp-sse, and through a compressing server.
@Suite(.serialized, TestTimeLimit.minutes(1), .needsNativeStack) struct EventSourceProxyLoopbackTests {
    static let expected = ["open", "event(tick,1,aiohttp 1)", "event(tick,2,aiohttp 2)", "event(tick,3,aiohttp 3)", "closed"]

    private func eventSource(_ proxy: EventSource.Proxy) -> EventSource {
        var eventSource = EventSource(timeoutInterval: 10, transport: .native)
        eventSource.proxy = proxy
        return eventSource
    }

    @Test(arguments: ["tinyproxy", "pproxy-socks5", "pproxy-http"])
    func eventsArriveThroughTheProxy(_ name: String) async throws {
        let server = try await TestServer.start("sse_aiohttp_server.py")
        defer { server.stop() }
        let proxy: TestProxy
        let good: EventSource.Proxy
        let wrong: EventSource.Proxy
        switch name {
        case "tinyproxy":
            proxy = try await TestProxy.tinyproxy(username: "alice", password: "s3cr3t")
            good = .http(host: "127.0.0.1", port: proxy.port, username: "alice", password: "s3cr3t")
            wrong = .http(host: "127.0.0.1", port: proxy.port, username: "alice", password: "nope")
        case "pproxy-http":
            proxy = try await TestProxy.pproxy("http", username: "alice", password: "s3cr3t")
            good = .url(URL(string: "http://alice:s3cr3t@127.0.0.1:\(proxy.port)")!)!
            wrong = .url(URL(string: "http://alice:nope@127.0.0.1:\(proxy.port)")!)!
        default:
            proxy = try await TestProxy.pproxy("socks5", username: "alice", password: "s3cr3t")
            good = .socks5(host: "127.0.0.1", port: proxy.port, username: "alice", password: "s3cr3t")
            wrong = .socks5(host: "127.0.0.1", port: proxy.port, username: "alice", password: "nope")
        }
        defer { proxy.stop() }
        #expect(!good.description.contains("s3cr3t"))
        let url = URL(string: "http://127.0.0.1:\(server.port)/events?count=3")!
        // Wrong credentials first: pproxy lets an address that authenticated once in for a while.
        #expect(
            await summaries(of: self.eventSource(wrong).dataTask(for: URLRequest(url: url)))
                == ["error(url \(URLError.Code.userAuthenticationRequired.rawValue))", "closed"])
        #expect(await summaries(of: self.eventSource(good).dataTask(for: URLRequest(url: url))) == Self.expected)
    }

    @Test func aCompressedStreamArrivesEventByEvent() async throws {
        let server = try await TestServer.start("sse_gzip_server.py")
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/stream?coding=gzip&count=3")!
        var seen: [String] = []
        for await event in EventSource(timeoutInterval: 8, transport: .native).dataTask(for: URLRequest(url: url)).events() {
            seen.append(event.summary)
            if case .event = event {
                // The server sends the next event only after this request.
                _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/next")!)
            }
        }
        #expect(seen.count == 5)
        #expect(seen.first == "open")
        #expect(seen.dropFirst().first?.hasPrefix("event(tick,1,compressed event 1 ") == true)
        #expect(seen.last == "closed")
        #expect(!server.lines.contains { $0.hasPrefix("TIMEOUT") })
    }
}
