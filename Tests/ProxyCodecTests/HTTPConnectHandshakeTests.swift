import HTTP1Codec
import ProxyCodec
import Testing

@Suite struct HTTPConnectHandshakeTests {
    private static let alice = ProxyCredentials(username: "alice", password: "s3cret:x")

    @Test func requestCarriesAuthorityHostAndBasicCredentials() {
        var plain = HTTPConnectHandshake(host: "example.com", port: 443, credentials: nil)
        #expect(
            String(decoding: plain.start(), as: UTF8.self)
                == "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        var authed = HTTPConnectHandshake(host: "::1", port: 8080, credentials: Self.alice)
        // base64("alice:s3cret:x") — the password may contain a colon (RFC 7617 §2).
        #expect(
            String(decoding: authed.start(), as: UTF8.self)
                == "CONNECT [::1]:8080 HTTP/1.1\r\nHost: [::1]:8080\r\nProxy-Authorization: Basic YWxpY2U6czNjcmV0Ong=\r\n\r\n")
    }

    @Test(arguments: Feeding.allCases)
    func successKeepsTheTunnelsFirstBytes(_ feeding: Feeding) {
        let reply = Array("HTTP/1.1 200 Connection established\r\nProxy-Agent: test\r\n\r\nHELLO".utf8)
        for outcome in outcomes({ HTTPConnectHandshake(host: "h", port: 1, credentials: nil) }, reply: reply, feeding) {
            #expect(outcome.result == .success(Array("HELLO".utf8)))
        }
    }

    @Test(arguments: Feeding.allCases)
    func http10ReplyWithoutLengthIsATunnel(_ feeding: Feeding) {
        let reply = Array("HTTP/1.0 200 OK\r\n\r\n".utf8)
        for outcome in outcomes({ HTTPConnectHandshake(host: "h", port: 1, credentials: nil) }, reply: reply, feeding) {
            #expect(outcome.result == .success([]))
        }
    }

    @Test(arguments: Feeding.allCases)
    func proxyAuthenticationRequiredIsTyped(_ feeding: Feeding) throws {
        let reply = Array(
            "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 5\r\n\r\nnope!".utf8)
        for outcome in outcomes({ HTTPConnectHandshake(host: "h", port: 1, credentials: Self.alice) }, reply: reply, feeding) {
            guard case .failure(let error) = outcome.result else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error.kind == .authenticationFailed)
            #expect(error.code == 407)
            #expect(!error.message.contains("s3cret"))
        }
    }

    @Test func tinyproxysUnauthorizedCountsAsAuthenticationFailure() {
        let reply = Array("HTTP/1.0 401 Unauthorized\r\nConnection: close\r\n\r\n".utf8)
        let outcome = run({ HTTPConnectHandshake(host: "h", port: 1, credentials: Self.alice) }, chunks: [reply])
        #expect(
            outcome.result
                == .failure(
                    ProxyHandshakeError(
                        .authenticationFailed, code: 401,
                        "the proxy rejected the credentials (401 Unauthorized)")))
    }

    @Test(arguments: [403, 500, 502, 503])
    func refusalCarriesTheStatus(_ status: Int) {
        let reply = Array("HTTP/1.1 \(status) No\r\nContent-Length: 0\r\n\r\n".utf8)
        for feeding in Feeding.allCases {
            for outcome in outcomes({ HTTPConnectHandshake(host: "h", port: 9, credentials: nil) }, reply: reply, feeding) {
                guard case .failure(let error) = outcome.result else {
                    Issue.record("expected a failure")
                    continue
                }
                #expect(error.kind == .targetRefused)
                #expect(error.code == status)
            }
        }
    }

    @Test func garbageIsAProtocolError() {
        let outcome = run(
            { HTTPConnectHandshake(host: "h", port: 1, credentials: nil) },
            chunks: [Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)])
        guard case .failure(let error) = outcome.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .protocolError)
    }

    @Test func closeBeforeTheReplyIsTyped() {
        for partial in ["", "HTTP/1.1 200 OK\r\n"] {
            let outcome = run(
                { HTTPConnectHandshake(host: "h", port: 1, credentials: nil) },
                chunks: partial.isEmpty ? [] : [Array(partial.utf8)])
            guard case .failure(let error) = outcome.result else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error.kind == .closed)
        }
    }

    @Test func anEndlessReplyHeadFailsWithinTheLimit() {
        var handshake = HTTPConnectHandshake(host: "h", port: 1, credentials: nil)
        _ = handshake.start()
        var failed: ProxyHandshakeError?
        var fed = 0
        while failed == nil, fed < 1 << 20 {
            do {
                _ = try handshake.receive(fed == 0 ? Array("HTTP/1.1 200 OK\r\nX: ".utf8) : [UInt8](repeating: 0x61, count: 1024))
            } catch {
                failed = error
            }
            fed += 1024
        }
        #expect(failed?.kind == .protocolError)
        #expect(fed <= 32 * 1024)
    }
}

@Suite struct HTTPResponseParserConnectTests {
    @Test func a2xxToConnectEndsParsingAndKeepsTheTunnelBytes() throws {
        var parser = HTTPResponseParser()
        parser.expectResponse(toMethod: "CONNECT")
        parser.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n\u{16}\u{03}".utf8))
        guard case .head(let head)? = try parser.next() else {
            Issue.record("no head")
            return
        }
        #expect(head.status == 200)
        #expect(try parser.next() == nil)
        #expect(parser.takeRemainingBytes() == [0x16, 0x03])
        #expect(!parser.canReuseConnection)
    }

    @Test func aRefusalToConnectHasItsBody() throws {
        var parser = HTTPResponseParser()
        parser.expectResponse(toMethod: "CONNECT")
        parser.append(Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\nno".utf8))
        guard case .head(let head)? = try parser.next() else {
            Issue.record("no head")
            return
        }
        #expect(head.status == 403)
        #expect(try parser.next() == .body(Array("no".utf8)))
        #expect(try parser.next() == .end)
    }
}
