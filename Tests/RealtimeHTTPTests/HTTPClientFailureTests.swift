import Foundation
import HTTP1Codec
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

@testable import RealtimeHTTP

/// The native client against servers that fail: refused, reset, truncated, oversized,
/// silent (`Tests/Servers/http_raw_server.py` and `http_server.py`).
@Suite(.serialized, TestTimeLimit.minutes(2)) struct HTTPClientFailureTests {
    @Test func refusedConnection() async throws {
        let port = try unusedLocalPort()
        let client = HTTPClient()
        let kind = await failureKind {
            _ = try await client.execute(HTTPClientRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
        }
        #expect(kind == .http(.network(.connectionRefused)))
    }

    @Test func invalidURLs() async {
        let client = HTTPClient()
        for url in ["ftp://127.0.0.1/", "http:///path", "http://127.0.0.1:70000/"] {
            guard let parsed = URL(string: url) else { continue }
            let kind = await failureKind { _ = try await client.execute(HTTPClientRequest(url: parsed)) }
            #expect(kind == .http(.invalidURL), "\(url)")
        }
    }

    @Test func closeDelimitedBodyEndsAtClose() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/close-delimited")))
        #expect(try await response.text() == "streamed until close")
        #expect(client.idleConnectionCount == 0)
    }

    @Test func resetMidResponse() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/reset")))
        var received: [UInt8] = []
        let kind = await failureKind {
            for try await chunk in response.body { received += chunk }
        }
        #expect(kind == .http(.network(.connectionReset)))
        #expect(received == Array("0123456789".utf8))
    }

    @Test func truncatedChunkedBody() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/truncated-chunked")))
        var received: [UInt8] = []
        let kind = await failureKind {
            for try await chunk in response.body { received += chunk }
        }
        #expect(kind == .http(.truncatedBody))
        #expect(received == Array("hello".utf8))
        #expect(client.idleConnectionCount == 0)
    }

    /// Regression: when the head and several chunks arrive in one read, every chunk reaches the
    /// consumer (the early look for a complete body once kept only the first).
    @Test func chunksArrivingWithTheHeadAreAllDelivered() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/chunks-in-one-write")))
        var received: [UInt8] = []
        for try await chunk in response.body { received += chunk }
        #expect(String(decoding: received, as: UTF8.self) == "firstsecondthird")
    }

    @Test func oversizedHeader() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let kind = await failureKind {
            _ = try await client.execute(HTTPClientRequest(url: server.url("/huge-header")))
        }
        #expect(kind == .http(.headersTooLarge))
    }

    @Test func malformedStatusLine() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let kind = await failureKind {
            _ = try await client.execute(HTTPClientRequest(url: server.url("/bad-status")))
        }
        #expect(kind == .http(.invalidResponse))
    }

    @Test func serverThatNeverAnswersTimesOut() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let start = MonotonicInstant.now
        let kind = await failureKind {
            _ = try await client.execute(HTTPClientRequest(url: server.url("/never"), idleTimeout: .milliseconds(500)))
        }
        let elapsed = MonotonicInstant.now - start
        #expect(kind == .http(.timedOut))
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(3), "\(elapsed)")
    }

    @Test func idleTimeoutNeverCapsAHealthyStream() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        // 6 chunks 300 ms apart: 1.8 s in all, with a 1 s idle timeout.
        let response = try await client.execute(
            HTTPClientRequest(
                url: server.url("/chunked?count=6&size=4&delay=300"),
                idleTimeout: .seconds(1)))
        #expect(try await response.body.collect(upTo: 1000) == serverPattern(size: 24))
    }

    @Test func aPausedConsumerIsNotTimedOut() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let response = try await client.execute(
            HTTPClientRequest(
                url: server.url("/length?size=200000"),
                idleTimeout: .milliseconds(300)))
        var iterator = response.body.makeAsyncIterator()
        var received = try await iterator.next() ?? []
        try await Task.sleep(.milliseconds(800))  // not pulling is not "no progress"
        while let chunk = try await iterator.next() { received += chunk }
        #expect(received == serverPattern(size: 200_000))
    }

    @Test func cancellingTheTaskClosesTheConnectionPromptly() async throws {
        let server = try await SharedTestServer.raw.server()
        let client = HTTPClient()
        let task = Task {
            await failureKind {
                _ = try await client.execute(HTTPClientRequest(url: server.url("/never")))
            }
        }
        try await Task.sleep(.milliseconds(300))
        let start = MonotonicInstant.now
        task.cancel()
        #expect(await task.value == .http(.cancelled))
        // Promptly: well before the 60 s idle timeout that would end the request otherwise. The
        // bound is generous so a loaded machine cannot trip it (what it costs is a benchmark's).
        #expect(MonotonicInstant.now - start < .seconds(15))
    }

    @Test func cancellingTheTaskStopsABodyStream() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/chunked?count=100&size=10&delay=200")))
        let task = Task {
            await failureKind {
                for try await _ in response.body {}
            }
        }
        try await Task.sleep(.milliseconds(500))
        let start = MonotonicInstant.now
        task.cancel()
        #expect(await task.value == .http(.cancelled))
        // Promptly: the server would go on for 20 s more (100 chunks, 200 ms apart); generous, as above.
        #expect(MonotonicInstant.now - start < .seconds(10))
        #expect(client.idleConnectionCount == 0)
    }

    /// The server writes 64 KiB chunks as fast as the socket takes them. The client pulls one
    /// chunk, then nothing for 1.5 s: the server's writes must block once the kernel buffers
    /// are full (a few MB), instead of the client buffering everything (gigabytes on loopback).
    @Test func backpressureStopsAnEndlessServer() async throws {
        let server = try await TestServer.start("http_server.py")
        defer { server.stop() }
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/forever")))
        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next()?.isEmpty == false)
        try await Task.sleep(.milliseconds(1500))
        let probe = HTTPClient()
        let first = try await probe.execute(HTTPClientRequest(url: server.url("/stats"))).decode(ForeverStats.self)
        try await Task.sleep(.milliseconds(300))
        let second = try await probe.execute(HTTPClientRequest(url: server.url("/stats"))).decode(ForeverStats.self)
        #expect(second.sent < 16 * 1024 * 1024, "server sent \(second.sent) bytes")
        #expect(second.sent == first.sent, "the server kept sending: \(first.sent) -> \(second.sent)")
        #expect(second.blocked)
        // Pulling again resumes the stream.
        var more = 0
        while more < 1_000_000, let chunk = try await iterator.next() { more += chunk.count }
        #expect(more >= 1_000_000)
        response.body.cancel()
    }
}

extension HTTPClientFailureTests {
    @Test func cancellingTheBodyFromAnotherTaskEndsAPendingRead() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/chunked?count=50&size=10&delay=200")))
        let reader = Task {
            await failureKind {
                for try await _ in response.body {}
            }
        }
        try await Task.sleep(.milliseconds(300))
        response.body.cancel()
        #expect(await reader.value == .http(.cancelled))
        #expect(client.idleConnectionCount == 0)
    }
}
