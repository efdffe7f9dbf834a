import Foundation
import HTTP1Codec
import RealtimeIO
import RealtimeTime
import RealtimeTransport
import TestSupport
import Testing

@testable import RealtimeHTTP

/// The native client against the aiohttp server (`Tests/Servers/http_server.py`).
@Suite(.serialized, TestTimeLimit.minutes(2)) struct HTTPClientTests {
    @Test func echoesMethodHeadersAndBody() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let request = HTTPClientRequest(
            method: "POST", url: server.url("/echo?a=1&b=%20"),
            headers: ["X-Test": "value", "Content-Type": "text/plain"],
            body: Array("payload".utf8))
        let response = try await client.execute(request)
        #expect(response.status == 200)
        #expect(response.reason == "OK")
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.method == "POST")
        #expect(echo.target == "/echo?a=1&b=%20")
        #expect(echo.header("Host") == "127.0.0.1:\(server.port)")
        #expect(echo.header("X-Test") == "value")
        #expect(echo.header("Content-Length") == "7")
        #expect(echo.body == "payload")
    }

    @Test func contentLengthBodyArrivesIntact() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/length?size=300000")))
        #expect(response.headers.first(name: "Content-Length") == "300000")
        #expect(try await response.body.collect(upTo: 1 << 20) == serverPattern(size: 300_000))
    }

    @Test func chunkedBodyStreamsAsItArrives() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let response = try await client.execute(HTTPClientRequest(url: server.url("/chunked?count=4&size=10&delay=300")))
        var received: [UInt8] = []
        var firstChunkAt: MonotonicInstant?
        for try await chunk in response.body {
            if firstChunkAt == nil { firstChunkAt = MonotonicInstant.now }
            received += chunk
        }
        #expect(received == serverPattern(size: 40))
        // The first chunk was handed out while the server still had three 300 ms pauses to
        // go: streamed, not collected. (Load can only lengthen the server's pauses.)
        #expect(MonotonicInstant.now - (try #require(firstChunkAt)) >= .milliseconds(600))
    }

    @Test func keepAliveReusesOneConnection() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        var ports: [Int] = []
        for _ in 0..<3 {
            let response = try await client.execute(HTTPClientRequest(url: server.url("/conn")))
            ports.append(try await response.decode(PeerPortReply.self).peer_port)
            #expect(client.idleConnectionCount == 1)
        }
        #expect(Set(ports).count == 1, "ports: \(ports)")
        // A HEAD response (no body despite Content-Length) leaves the connection reusable too.
        let head = try await client.execute(HTTPClientRequest(method: "HEAD", url: server.url("/length?size=100")))
        #expect(head.headers.first(name: "Content-Length") == "100")
        #expect(try await head.body.collect(upTo: 10).isEmpty)
        let after = try await client.execute(HTTPClientRequest(url: server.url("/conn"))).decode(PeerPortReply.self)
        #expect(after.peer_port == ports[0])
    }

    @Test func concurrentRequestsUseSeparateConnections() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        async let first = client.execute(HTTPClientRequest(url: server.url("/chunked?count=3&size=5&delay=100")))
        async let second = client.execute(HTTPClientRequest(url: server.url("/chunked?count=3&size=5&delay=100")))
        let (one, two) = try await (first, second)
        async let bodyOne = one.body.collect(upTo: 100)
        async let bodyTwo = two.body.collect(upTo: 100)
        let (a, b) = try await (bodyOne, bodyTwo)
        #expect(a == serverPattern(size: 15))
        #expect(b == serverPattern(size: 15))
        #expect(client.idleConnectionCount == 2)
    }

    @Test func aConnectionTheServerClosedWhileIdleIsReplaced() async throws {
        let server = try await TestServer.start("http_server.py", arguments: ["--keepalive-timeout", "0.2"])
        defer { server.stop() }
        let client = HTTPClient()
        let first = try await client.execute(HTTPClientRequest(url: server.url("/conn"))).decode(PeerPortReply.self)
        #expect(client.idleConnectionCount == 1)
        // Wait until the server has closed the idle connection (its 0.2 s keep-alive timeout),
        // as the kernel reports it, instead of a sleep that a loaded machine can outlast.
        let closed = await ProcessResources.eventually(timeout: .seconds(30)) {
            LoopbackSockets.peerClosed(localPort: first.peer_port) ?? true
        }
        #expect(closed, "the server did not close the idle connection")
        // The server closed the first connection, so a reply means a new one carried the request.
        // (Not checked by port: the kernel may give the new connection the same, freed, port.)
        let second = try await client.execute(HTTPClientRequest(url: server.url("/conn"))).decode(PeerPortReply.self)
        #expect(second.peer_port > 0)
        #expect(client.idleConnectionCount == 1)
    }

    @Test func cookiesAreStoredAndSentBack() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        _ = try await client.execute(HTTPClientRequest(url: server.url("/set-cookie"))).body.collect(upTo: 1000)
        #expect(Set(client.cookieStore.allCookies.map(\.name)) == ["session", "theme", "scoped", "secureonly"])
        let plain = try await client.execute(HTTPClientRequest(url: server.url("/cookies"))).decode(CookieReply.self)
        #expect(plain.cookie == "session=abc123; theme=dark")
        let scoped = try await client.execute(
            HTTPClientRequest(
                url: server.url("/cookies/sub"),
                headers: ["Cookie": "mine=1"])
        )
        .decode(CookieReply.self)
        #expect(scoped.cookie == "mine=1; scoped=yes; session=abc123; theme=dark")
    }

    @Test func followsSameOriginRedirectsKeepingCredentials() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let response = try await client.execute(
            HTTPClientRequest(
                url: server.url("/redirect-chain?n=3"),
                headers: ["Authorization": "Bearer t"],
                maxRedirects: 3))
        #expect(response.status == 200)
        #expect(response.url.path == "/echo")
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.header("Authorization") == "Bearer t")
        // The three redirects and the final request shared one connection.
        #expect(client.idleConnectionCount == 1)
    }

    @Test func crossOriginRedirectDropsAuthorizationAndCookie() async throws {
        // 127.0.0.1 and localhost are different origins (RFC 6454), served by one process.
        let first = try await SharedTestServer.http.server()
        let second = first
        let client = HTTPClient()
        _ = try await client.execute(HTTPClientRequest(url: first.url("/set-cookie"))).body.collect(upTo: 1000)
        let target = second.url("/echo", host: "localhost").absoluteString
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let request = HTTPClientRequest(
            method: "POST", url: first.url("/redirect?status=307&to=\(target)"),
            headers: [
                "Authorization": "Bearer secret", "Cookie": "mine=1",
                "X-Keep": "kept",
            ],
            body: Array("body".utf8), maxRedirects: 2)
        let response = try await client.execute(request)
        #expect(response.url.host == "localhost")
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.method == "POST")
        #expect(echo.body == "body")
        #expect(echo.header("Authorization") == nil)
        #expect(echo.header("Cookie") == nil)
        #expect(echo.header("X-Keep") == "kept")
        #expect(echo.header("Host") == "localhost:\(second.port)")
    }

    @Test(arguments: [(303, "GET", ""), (302, "GET", ""), (307, "POST", "form"), (308, "POST", "form")])
    func redirectMethodRules(status: Int, method: String, body: String) async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let response = try await client.execute(
            HTTPClientRequest(
                method: "POST", url: server.url("/redirect?status=\(status)&to=/echo"),
                headers: ["Content-Type": "text/plain"], body: Array("form".utf8), maxRedirects: 1))
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.method == method)
        #expect(echo.body == body)
    }

    @Test func redirectLimits() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let kind = await failureKind {
            _ = try await client.execute(HTTPClientRequest(url: server.url("/redirect-chain?n=4"), maxRedirects: 2))
        }
        #expect(kind == .http(.tooManyRedirects))
        let unfollowed = try await client.execute(HTTPClientRequest(url: server.url("/redirect-chain?n=2")))
        #expect(unfollowed.status == 302)
        #expect(unfollowed.headers.first(name: "Location") == "/redirect-chain?n=1")
        #expect(try await unfollowed.text().isEmpty)
    }

    @Test func https() async throws {
        let certificates = try TestCertificates.make()
        let server = try await TestServer.start(
            "http_server.py",
            arguments: [
                "--cert", certificates.file("localhost.pem").path, "--key", certificates.file("localhost.key").path,
            ])
        defer { server.stop() }
        let client = HTTPClient()
        let trusted = TLSConfiguration(additionalTrustRootsPEM: [certificates.caCertificatePEM])
        let url = server.url("/echo", scheme: "https", host: "localhost")
        let response = try await client.execute(HTTPClientRequest(url: url, headers: ["X-Over": "tls"], tls: trusted))
        let echo = try await response.decode(EchoReply.self)
        #expect(echo.header("X-Over") == "tls")
        let port = echo.peer_port
        let again = try await client.execute(HTTPClientRequest(url: url, tls: trusted)).decode(EchoReply.self)
        #expect(again.peer_port == port)

        let untrusted = await failureKind {
            _ = try await client.execute(HTTPClientRequest(url: url))
        }
        #expect(untrusted == .http(.network(.certificateUntrusted)))
    }
}

extension HTTPClientTests {
    @Test func aBodylessResponseFreesItsConnectionWithoutBeingRead() async throws {
        let server = try await SharedTestServer.http.server()
        let client = HTTPClient()
        let head = try await client.execute(HTTPClientRequest(method: "HEAD", url: server.url("/length?size=10")))
        #expect(head.status == 200)
        #expect(client.idleConnectionCount == 1)
        // A small body that arrived with the head also frees the connection; it is still delivered.
        let small = try await client.execute(HTTPClientRequest(url: server.url("/length?size=10")))
        #expect(client.idleConnectionCount == 1)
        #expect(try await small.body.collect(upTo: 100) == serverPattern(size: 10))
    }
}

/// How a request goes out: a large body after its head, not copied behind it.
@Suite struct HTTPRequestWritesTests {
    @Test func aLargeBodyIsWrittenApartAndASmallOneWithItsHead() {
        let headers: HTTPHeaders = ["Host": "h"]
        let large = [UInt8](repeating: 0x61, count: HTTPClient.separateBodyWriteThreshold)
        let apart = HTTPClient.requestWrites(method: "POST", target: "/p", headers: headers, body: large)
        #expect(apart.count == 2)
        #expect(apart.last == large)
        #expect(apart.joined().elementsEqual(HTTPRequestWriter.serialize(method: "POST", target: "/p", headers: headers, body: large)))

        let small = Array(large.dropLast())
        let together = HTTPClient.requestWrites(method: "POST", target: "/p", headers: headers, body: small)
        #expect(together == [HTTPRequestWriter.serialize(method: "POST", target: "/p", headers: headers, body: small)])
        #expect(HTTPClient.requestWrites(method: "GET", target: "/", headers: headers, body: nil).count == 1)
    }
}
