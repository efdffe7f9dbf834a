import ProxyCodec
import Testing

@Suite struct SOCKS5HandshakeTests {
    private static let bob = ProxyCredentials(username: "bob", password: "pw")
    /// A success reply bound to 10.0.0.1:4660.
    private static let successIPv4: [UInt8] = [0x05, 0x00, 0x00, 0x01, 10, 0, 0, 1, 0x12, 0x34]

    private static func connectRequest(domain: String, port: UInt16) -> [UInt8] {
        [0x05, 0x01, 0x00, 0x03, UInt8(domain.utf8.count)] + Array(domain.utf8) + [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    @Test(arguments: Feeding.allCases)
    func noAuthenticationThenConnectByName(_ feeding: Feeding) {
        let reply: [UInt8] = [0x05, 0x00] + Self.successIPv4 + Array("GET".utf8)
        for outcome in outcomes({ SOCKS5Handshake(host: "example.com", port: 443, credentials: nil) }, reply: reply, feeding) {
            #expect(outcome.sent == [0x05, 0x01, 0x00] + Self.connectRequest(domain: "example.com", port: 443))
            #expect(outcome.result == .success(Array("GET".utf8)))
        }
    }

    @Test(arguments: Feeding.allCases)
    func usernamePasswordThenConnect(_ feeding: Feeding) {
        // Method 2, RFC 1929 success, then a reply bound to a domain name.
        let boundName: [UInt8] = [0x05, 0x00, 0x00, 0x03, 4] + Array("prox".utf8) + [0x00, 0x50]
        let reply: [UInt8] = [0x05, 0x02, 0x01, 0x00] + boundName
        for outcome in outcomes({ SOCKS5Handshake(host: "srv", port: 80, credentials: Self.bob) }, reply: reply, feeding) {
            #expect(
                outcome.sent == [0x05, 0x02, 0x00, 0x02]
                    + [0x01, 3] + Array("bob".utf8) + [2] + Array("pw".utf8)
                    + Self.connectRequest(domain: "srv", port: 80))
            #expect(outcome.result == .success([]))
        }
    }

    @Test func ipLiteralsGoAsAddresses() {
        let v4 = run(
            { SOCKS5Handshake(host: "127.0.0.1", port: 8080, credentials: nil) },
            chunks: [[0x05, 0x00] + Self.successIPv4])
        #expect(v4.sent == [0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x01, 127, 0, 0, 1, 0x1F, 0x90])
        let v6 = run({ SOCKS5Handshake(host: "::1", port: 1, credentials: nil) }, chunks: [[0x05, 0x00] + Self.successIPv4])
        #expect(v6.sent == [0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x04] + [UInt8](repeating: 0, count: 15) + [1, 0, 1])
        let mapped = run(
            { SOCKS5Handshake(host: "2001:db8::ffff:1.2.3.4", port: 1, credentials: nil) },
            chunks: [[0x05, 0x00] + Self.successIPv4])
        #expect(Array(mapped.sent[7..<23]) == [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4])
        // Not literals: sent as names.
        for name in ["1.2.3", "256.1.1.1", "01.2.3.4", "a::b::c", "host.example"] {
            let outcome = run({ SOCKS5Handshake(host: name, port: 1, credentials: nil) }, chunks: [[0x05, 0x00]])
            #expect(outcome.sent[6] == 0x03, "\(name)")
        }
    }

    @Test(arguments: Feeding.allCases)
    func rejectedCredentialsAreAnAuthenticationFailure(_ feeding: Feeding) {
        for outcome in outcomes(
            { SOCKS5Handshake(host: "srv", port: 80, credentials: Self.bob) },
            reply: [0x05, 0x02, 0x01, 0x01], feeding)
        {
            guard case .failure(let error) = outcome.result else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error.kind == .authenticationFailed)
            #expect(!error.message.contains("pw"))
        }
    }

    @Test func aCloseAfterTheCredentialsIsAnAuthenticationFailure() {
        // pproxy closes without an RFC 1929 status.
        let outcome = run({ SOCKS5Handshake(host: "srv", port: 80, credentials: Self.bob) }, chunks: [[0x05, 0x02]])
        guard case .failure(let error) = outcome.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .authenticationFailed)
    }

    @Test func noAcceptableMethodOrMissingCredentials() {
        for (credentials, reply) in [(Self.bob, [UInt8]([0x05, 0xFF])), (nil, [0x05, 0xFF]), (nil, [0x05, 0x02])] {
            let outcome = run({ SOCKS5Handshake(host: "srv", port: 80, credentials: credentials) }, chunks: [reply])
            guard case .failure(let error) = outcome.result else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error.kind == .authenticationFailed)
        }
    }

    @Test(arguments: [UInt8(1), 2, 3, 4, 5, 6, 7, 8, 0x42])
    func replyCodesAreRefusals(_ code: UInt8) {
        let reply: [UInt8] = [0x05, 0x00, 0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]
        for feeding in Feeding.allCases {
            for outcome in outcomes({ SOCKS5Handshake(host: "srv", port: 80, credentials: nil) }, reply: reply, feeding) {
                guard case .failure(let error) = outcome.result else {
                    Issue.record("expected a failure")
                    continue
                }
                #expect(error.kind == .targetRefused)
                #expect(error.code == Int(code))
                #expect(error.message.contains(SOCKS5Handshake.meaning(ofReply: code)))
            }
        }
    }

    @Test func malformedRepliesAreProtocolErrors() {
        for reply: [UInt8] in [
            [0x04, 0x00], [0x05, 0x01], [0x05, 0x00, 0x04, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0],
            [0x05, 0x00, 0x05, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0, 0],
            [0x05, 0x02, 0x05, 0x00],
        ] {
            let outcome = run({ SOCKS5Handshake(host: "srv", port: 80, credentials: Self.bob) }, chunks: [reply])
            guard case .failure(let error) = outcome.result else {
                Issue.record("expected a failure for \(reply)")
                continue
            }
            #expect(error.kind == .protocolError, "\(reply)")
        }
    }

    @Test func closeMidReplyIsTyped() {
        let outcome = run({ SOCKS5Handshake(host: "srv", port: 80, credentials: nil) }, chunks: [[0x05, 0x00, 0x05, 0x00]])
        guard case .failure(let error) = outcome.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .closed)
    }

    @Test func oversizedFieldsAreConfigurationErrors() {
        let long = String(repeating: "x", count: 256)
        let user = run(
            { SOCKS5Handshake(host: "srv", port: 80, credentials: ProxyCredentials(username: long, password: "p")) },
            chunks: [[0x05, 0x02]])
        #expect((try? user.result.get()) == nil)
        if case .failure(let error) = user.result { #expect(error.kind == .invalidConfiguration) }
        let host = run({ SOCKS5Handshake(host: long, port: 80, credentials: nil) }, chunks: [[0x05, 0x00]])
        if case .failure(let error) = host.result { #expect(error.kind == .invalidConfiguration) } else { Issue.record("no error") }
    }
}
