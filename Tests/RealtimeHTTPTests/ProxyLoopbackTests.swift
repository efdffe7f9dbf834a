import Foundation
import HTTP1Codec
import ProxyCodec
import RealtimeIO
import TestSupport
import Testing

@testable import RealtimeHTTP

/// The real proxies the project installs, each with the configuration the client needs.
enum RealProxy: String, CustomStringConvertible, Sendable {
    /// Debian tinyproxy, HTTP CONNECT with Basic auth.
    case tinyproxy
    /// PyPI pproxy, SOCKS5 with username/password (RFC 1929).
    case pproxySOCKS5
    /// PyPI pproxy, HTTP CONNECT with Basic auth.
    case pproxyHTTP
    /// Debian dante-server, SOCKS5 without authentication.
    case dante

    /// The proxies every tunnel test runs through (dante serves the refusal test: its reply codes).
    static let allCases: [RealProxy] = [.tinyproxy, .pproxySOCKS5, .pproxyHTTP]

    static let username = "alice"
    static let password = "s3cr3t"

    var description: String { self.rawValue }

    func start() async throws -> TestProxy {
        switch self {
        case .tinyproxy: return try await TestProxy.tinyproxy(username: Self.username, password: Self.password)
        case .pproxySOCKS5: return try await TestProxy.pproxy("socks5", username: Self.username, password: Self.password)
        case .pproxyHTTP: return try await TestProxy.pproxy("http", username: Self.username, password: Self.password)
        case .dante: return try await TestProxy.dante(blockedPort: 9)
        }
    }

    var kind: ProxyServer.Kind { self == .tinyproxy || self == .pproxyHTTP ? .httpConnect : .socks5 }

    func server(_ proxy: TestProxy, password: String = RealProxy.password) -> ProxyServer {
        let credentials = self == .dante ? nil : ProxyCredentials(username: Self.username, password: password)
        return ProxyServer(kind: self.kind, host: "127.0.0.1", port: UInt16(proxy.port), credentials: credentials)
    }
}

/// HTTPClient and WebSocketClient through real proxies (tinyproxy, pproxy, dante) to real
/// servers on 127.0.0.1: plain HTTP, TLS verified against the origin's name, WebSocket, and
/// each failure as a typed error.
@Suite(.serialized, TestTimeLimit.minutes(1)) struct ProxyLoopbackTests {
    private func request(_ url: URL, via server: ProxyServer, tls: TLSConfiguration = TLSConfiguration()) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url, idleTimeout: .seconds(10), tls: tls)
        request.proxy = .server(server)
        return request
    }

    @Test(arguments: RealProxy.allCases)
    func plainHTTPGoesThroughTheTunnelAndIsPooledPerProxy(_ kind: RealProxy) async throws {
        let proxy = try await kind.start()
        defer { proxy.stop() }
        let origin = try await TestServer.start("http_server.py")
        defer { origin.stop() }
        let client = HTTPClient()
        let first = try await client.execute(self.request(origin.url("/echo?n=1"), via: kind.server(proxy)))
        #expect(first.status == 200)
        let echo = try await first.decode(EchoReply.self)
        #expect(echo.query == "n=1")
        // CONNECT credentials never reach the origin; the request itself is origin-form.
        #expect(echo.header("Proxy-Authorization") == nil)
        #expect(echo.target == "/echo?n=1")
        // The tunnel is kept alive and reused for the same origin through the same proxy.
        let second = try await client.execute(self.request(origin.url("/echo?n=2"), via: kind.server(proxy)))
        #expect(try await second.decode(EchoReply.self).peer_port == echo.peer_port)
        #expect(client.idleConnectionCount == 1)
        // Direct to the same origin is another pool entry (another connection).
        let direct = try await client.execute(HTTPClientRequest(url: origin.url("/echo?n=3")))
        #expect(try await direct.decode(EchoReply.self).peer_port != echo.peer_port)
        #expect(client.idleConnectionCount == 2)
    }

    @Test(arguments: RealProxy.allCases)
    func tlsInsideTheTunnelIsVerifiedAgainstTheOrigin(_ kind: RealProxy) async throws {
        let certificates = try await TestCertificates.makeOffThePool()
        let proxy = try await kind.start()
        defer { proxy.stop() }
        let good = try await TestServer.start(
            "http_server.py",
            arguments: [
                "--cert", certificates.file("localhost.pem").path, "--key", certificates.file("localhost.key").path, "--log-sni",
            ])
        defer { good.stop() }
        let trusted = TLSConfiguration(additionalTrustRootsPEM: [certificates.caCertificatePEM])
        let client = HTTPClient()
        // The proxy is 127.0.0.1; the origin is `localhost`: SNI and verification use `localhost`.
        let response = try await client.execute(
            self.request(
                good.url("/echo", scheme: "https", host: "localhost"),
                via: kind.server(proxy), tls: trusted))
        #expect(response.status == 200)
        _ = try await response.body.collect(upTo: 1 << 20)
        #expect(try await good.waitForLine { $0.hasPrefix("SNI ") } == "SNI localhost")

        // The default trust store does not know the test CA: refused inside the tunnel too.
        do {
            _ = try await client.execute(
                self.request(
                    good.url("/echo", scheme: "https", host: "localhost"),
                    via: kind.server(proxy)))
            Issue.record("the test CA was trusted by default")
        } catch {
            #expect(error.kind == .network(.certificateUntrusted))
        }
        // A certificate for another name fails host-name verification through the tunnel.
        let wrong = try await TestServer.start(
            "http_server.py",
            arguments: [
                "--cert", certificates.file("wronghost.pem").path, "--key", certificates.file("wronghost.key").path,
            ])
        defer { wrong.stop() }
        do {
            _ = try await client.execute(
                self.request(
                    wrong.url("/echo", scheme: "https", host: "localhost"),
                    via: kind.server(proxy), tls: trusted))
            Issue.record("a certificate for example.invalid was accepted for localhost")
        } catch {
            #expect(error.kind == .network(.hostnameMismatch))
        }
    }

    @Test(arguments: RealProxy.allCases)
    func webSocketThroughTheTunnel(_ kind: RealProxy) async throws {
        let proxy = try await kind.start()
        defer { proxy.stop() }
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        var options = WebSocketOptions(enableCompression: true)
        options.proxy = .server(kind.server(proxy))
        let connection = try await WebSocketClient().openConnection(
            to: URL(string: "ws://127.0.0.1:\(server.port)/")!,
            options: options)
        for message in [WebSocketMessage.text("through \(kind)"), .binary(Array(0..<200))] {
            try await connection.send(message)
            #expect(try await connection.receive() == message)
        }
        await connection.close(code: 1000, reason: "")
    }

    @Test(arguments: [RealProxy.tinyproxy, .pproxySOCKS5, .pproxyHTTP])
    func wrongCredentialsAreAnAuthenticationFailure(_ kind: RealProxy) async throws {
        let proxy = try await kind.start()
        defer { proxy.stop() }
        let origin = try await TestServer.start("http_server.py")
        defer { origin.stop() }
        for password in ["wrong", nil] as [String?] {
            var server = kind.server(proxy, password: password ?? "")
            if password == nil { server.credentials = nil }
            do {
                _ = try await HTTPClient().execute(self.request(origin.url("/echo"), via: server))
                Issue.record("\(kind) accepted \(password ?? "no credentials")")
            } catch {
                // pproxy's SOCKS5 closes after a greeting without method 2 instead of answering 0xFF.
                let expected: HTTPClientError.Kind =
                    kind == .pproxySOCKS5 && password == nil
                    ? .network(.proxyFailed) : .network(.proxyAuthenticationFailed)
                #expect(error.kind == expected, "\(kind): \(error)")
                #expect(!error.message.contains(RealProxy.password))
            }
            // The WebSocket client reports the same kind.
            var options = WebSocketOptions()
            options.proxy = .server(server)
            do {
                _ = try await WebSocketClient().openConnection(to: URL(string: "ws://127.0.0.1:\(origin.port)/")!, options: options)
                Issue.record("\(kind) accepted a WebSocket with \(password ?? "no credentials")")
            } catch {
                #expect(
                    error.description.contains(kind == .pproxySOCKS5 && password == nil ? "proxyFailed" : "proxyAuthenticationFailed"),
                    "\(error)")
            }
        }
    }

    @Test func aRefusedTargetCarriesTheStatusOrReplyCode() async throws {
        let origin = try await TestServer.start("http_server.py")
        defer { origin.stop() }
        // tinyproxy allows CONNECT to port 443 only: 403 for the origin's port.
        let tinyproxy = try await TestProxy.tinyproxy(connectPorts: [443])
        defer { tinyproxy.stop() }
        let viaTinyproxy = ProxyServer(kind: .httpConnect, host: "127.0.0.1", port: UInt16(tinyproxy.port))
        do {
            _ = try await HTTPClient().execute(self.request(origin.url("/echo"), via: viaTinyproxy))
            Issue.record("tinyproxy allowed a port outside ConnectPort")
        } catch {
            #expect(error.kind == .network(.proxyRefused(code: 403)), "\(error)")
        }
        // dante's rule blocks 127.0.0.1:9: reply code 2 (RFC 1928 §6 "not allowed by ruleset").
        let dante = try await TestProxy.dante(blockedPort: 9)
        defer { dante.stop() }
        let viaDante = ProxyServer(kind: .socks5, host: "127.0.0.1", port: UInt16(dante.port))
        do {
            _ = try await HTTPClient().execute(self.request(URL(string: "http://127.0.0.1:9/")!, via: viaDante))
            Issue.record("dante allowed a blocked target")
        } catch {
            #expect(error.kind == .network(.proxyRefused(code: 2)), "\(error)")
            #expect(error.message.contains("not allowed by ruleset"))
        }
        // Nothing listens on the origin port: dante answers 5 ("connection refused").
        let closedPort = try unusedLocalPort()
        do {
            _ = try await HTTPClient().execute(self.request(URL(string: "http://127.0.0.1:\(closedPort)/")!, via: viaDante))
            Issue.record("dante reached a closed port")
        } catch {
            #expect(error.kind == .network(.proxyRefused(code: 5)), "\(error)")
        }
    }

    @Test(arguments: RealProxy.allCases)
    func aProxyThatDiesMidStreamFailsTheBody(_ kind: RealProxy) async throws {
        let proxy = try await kind.start()
        let origin = try await TestServer.start("http_server.py")
        defer { origin.stop() }
        let response = try await HTTPClient().execute(
            self.request(
                origin.url("/chunked?count=1000&size=1000&delay=20"),
                via: kind.server(proxy)))
        var iterator = response.body.makeAsyncIterator()
        var received = 0
        while received < 5_000, let chunk = try await iterator.next() { received += chunk.count }
        proxy.kill9()
        do {
            while try await iterator.next() != nil {}
            Issue.record("the body ended cleanly after the proxy died")
        } catch {
            let expected: [HTTPClientError.Kind] = [.truncatedBody, .network(.connectionReset), .network(.closed)]
            #expect(expected.contains(error.kind), "\(error)")
        }
        proxy.stop()
    }

    @Test func aProxyThatIsNotThereIsAConnectError() async throws {
        let port = try unusedLocalPort()
        let server = ProxyServer(kind: .socks5, host: "127.0.0.1", port: UInt16(port))
        do {
            _ = try await HTTPClient().execute(self.request(URL(string: "http://127.0.0.1:1/")!, via: server))
            Issue.record("connected through a missing proxy")
        } catch {
            #expect(error.kind == .network(.connectionRefused))
        }
    }
}
