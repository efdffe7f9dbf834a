import Foundation
import HTTP1Codec
@testable import RealtimeHTTP
import Testing
import TestSupport

@Suite(.serialized) struct URLSessionHTTPTransportTests {
    @Test func echoesMethodHeadersAndBody() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport()
        let request = HTTPClientRequest(method: "POST", url: server.url("/echo?x=1"),
                                        headers: ["X-Test": "value", "Content-Type": "text/plain"],
                                        body: Array("payload".utf8))
        let response = try await transport.execute(request)
        #expect(response.status == 200)
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.method == "POST")
        #expect(echo.query == "x=1")
        #expect(echo.header("X-Test") == "value")
        #expect(echo.body == "payload")
    }

    @Test func streamsChunksAsTheyArrive() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport()
        let start = ContinuousClock.now
        let response = try await transport.execute(HTTPClientRequest(url: server.url("/chunked?count=5&size=10&delay=300")))
        var received: [UInt8] = []
        var firstChunkAfter: Duration?
        for try await chunk in response.body {
            if firstChunkAfter == nil { firstChunkAfter = ContinuousClock.now - start }
            received += chunk
        }
        #expect(received == serverPattern(size: 50))
        // The whole body takes at least 1.2 s; the first chunk must come well before.
        #expect(try #require(firstChunkAfter) < .milliseconds(900))
        #expect(ContinuousClock.now - start >= .milliseconds(1200))
    }

    @Test func idleTimeoutFailsAServerThatNeverAnswers() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport()
        let start = ContinuousClock.now
        let kind = await failureKind {
            _ = try await transport.execute(HTTPClientRequest(url: server.url("/slow"), idleTimeout: .milliseconds(700)))
        }
        #expect(kind == .http(.timedOut))
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aSlowButHealthyStreamDoesNotTimeOut() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport()
        let request = HTTPClientRequest(url: server.url("/chunked?count=6&size=4&delay=300"), idleTimeout: .seconds(1))
        let response = try await transport.execute(request)
        let body = try await response.body.collect(upTo: 1000)
        #expect(body == serverPattern(size: 24))
    }

    @Test func refusedConnection() async throws {
        let port = try unusedLocalPort()
        let transport = URLSessionHTTPTransport()
        let kind = await failureKind {
            _ = try await transport.execute(HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
        }
        #expect(kind == .http(.network(.connectionRefused)))
    }

    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport()
        let task = Task {
            await failureKind {
                _ = try await transport.execute(HTTPClientRequest(url: server.url("/slow")))
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        task.cancel()
        let kind = await task.value
        #expect(kind == .http(.cancelled))
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func redirectAcrossOriginsDropsCredentials() async throws {
        let first = try await TestServer.start("http_server.py")
        defer { first.stop() }
        let second = try await TestServer.start("http_server.py")
        defer { second.stop() }
        let transport = URLSessionHTTPTransport()
        let target = second.url("/echo").absoluteString
        let request = HTTPClientRequest(
            url: first.url("/redirect?status=302&to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"),
            headers: ["Authorization": "Bearer secret", "X-Keep": "kept"], maxRedirects: 3)
        let response = try await transport.execute(request)
        #expect(response.status == 200)
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.path == "/echo")
        #expect(echo.header("Authorization") == nil)
        #expect(echo.header("X-Keep") == "kept")
    }

    /// The server offers 64 KiB every 2 ms (about 32 MB/s, 55 MB over the pause). URLSession
    /// on Linux hands data to the delegate through an unbounded operation queue, so a
    /// suspension takes effect only once the delegate caught up; at this rate it does, and the
    /// server ends blocked with a few MB sent. (Against a loopback peer writing as fast as it
    /// can, the delegate queue falls behind and about 1 GB was queued before the suspension
    /// landed: a FoundationNetworking limit the native ``HTTPClient`` does not have.)
    @Test func bodyBufferIsBoundedWhileTheConsumerDoesNotPull() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport(bufferLimit: 256 * 1024)
        let response = try await transport.execute(HTTPClientRequest(url: server.url("/forever?delay=2")))
        var iterator = response.body.makeAsyncIterator()
        _ = try await iterator.next()
        try await Task.sleep(for: .milliseconds(1500))
        let probe = URLSessionHTTPTransport()
        let first = try await probe.execute(HTTPClientRequest(url: server.url("/stats"))).decode(ForeverStats.self)
        try await Task.sleep(for: .milliseconds(300))
        let second = try await probe.execute(HTTPClientRequest(url: server.url("/stats"))).decode(ForeverStats.self)
        // Unbounded buffering would have taken gigabytes in 1.5 s on loopback.
        #expect(second.sent < 16 * 1024 * 1024, "server sent \(second.sent) bytes")
        #expect(second.sent == first.sent, "the server kept sending: \(first.sent) -> \(second.sent)")
        #expect(second.blocked)
        response.body.cancel()
    }
}

extension URLSessionHTTPTransportTests {
    @Test func redirectLimits() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport()
        let kind = await failureKind {
            _ = try await transport.execute(HTTPClientRequest(url: server.url("/redirect-chain?n=4"), maxRedirects: 2))
        }
        #expect(kind == .http(.tooManyRedirects))
        let followed = try await transport.execute(HTTPClientRequest(url: server.url("/redirect-chain?n=2"),
                                                                     maxRedirects: 2))
        #expect(followed.status == 200)
        #expect(followed.url.path == "/echo")
        let unfollowed = try await transport.execute(HTTPClientRequest(url: server.url("/redirect-chain?n=2")))
        #expect(unfollowed.status == 302)
        #expect(unfollowed.headers.first(name: "Location") == "/redirect-chain?n=1")
    }

    @Test(arguments: [(303, "GET", ""), (302, "GET", ""), (307, "POST", "form"), (308, "POST", "form")])
    func redirectMethodRules(status: Int, method: String, body: String) async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let transport = URLSessionHTTPTransport()
        let response = try await transport.execute(HTTPClientRequest(
            method: "POST", url: server.url("/redirect?status=\(status)&to=/echo"),
            headers: ["Content-Type": "text/plain"], body: Array("form".utf8), maxRedirects: 1))
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.method == method)
        #expect(echo.body == body)
    }
}
