import RealtimeEncoding
package import RealtimeTransport

/// The client side of a SOCKS5 `CONNECT` (RFC 1928) with optional username/password
/// authentication (RFC 1929), as a ``ProxyHandshake``.
///
/// The greeting offers "no authentication" (0x00), plus "username/password" (0x02) when
/// credentials are given. The target goes as a domain name (ATYP 3, so the proxy resolves it,
/// like `socks5h://`) unless it is an IPv4 or IPv6 literal (ATYP 1 / 4). Failures:
/// - method 0xFF, the proxy choosing 0x02 without credentials, an RFC 1929 status other than 0
///   or the proxy closing after the credentials were sent: `.authenticationFailed`;
/// - a reply code other than 0 (RFC 1928 §6): `.targetRefused` with the code as
///   ``ProxyHandshakeError/code`` and its RFC meaning in the message;
/// - anything malformed: `.protocolError`.
///
/// - Important: A value type with no locking; the owner serializes access. It buffers at most
///   one reply (under 263 bytes) beyond what it consumed.
package struct SOCKS5Handshake: ProxyHandshake {
    private enum State: Sendable {
        case idle
        case awaitingMethod
        case awaitingAuthStatus
        case awaitingReply
        case established
        case failed(ProxyHandshakeError)
    }

    private let host: String
    private let port: UInt16
    private let credentials: ProxyCredentials?
    private var state: State = .idle
    private var buffer = InputByteBuffer()

    package init(host: String, port: UInt16, credentials: ProxyCredentials?) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    package mutating func start() -> [UInt8] {
        self.state = .awaitingMethod
        return self.credentials == nil ? [0x05, 0x01, 0x00] : [0x05, 0x02, 0x00, 0x02]
    }

    package mutating func receive(_ bytes: [UInt8]) throws(ProxyHandshakeError) -> ProxyHandshakeStep {
        if case .failed(let error) = self.state { throw error }
        self.buffer.append(bytes)
        var output: [UInt8] = []
        while true {
            switch self.state {
            case .failed(let error):
                throw error
            case .idle, .established:
                throw self.fail(.protocolError, "bytes from the proxy outside its replies")
            case .awaitingMethod:
                guard self.buffer.count >= 2 else { return ProxyHandshakeStep(output: output, state: .needMore) }
                let (version, method) = (self.buffer[0], self.buffer[1])
                self.buffer.consume(2)
                guard version == 0x05 else { throw self.fail(.protocolError, "not a SOCKS5 proxy (version \(version))") }
                switch method {
                case 0x00:
                    output += try self.connectRequest()
                    self.state = .awaitingReply
                case 0x02 where self.credentials != nil:
                    output += try self.authenticationRequest()
                    self.state = .awaitingAuthStatus
                case 0x02, 0xFF:
                    throw self.fail(
                        .authenticationFailed,
                        self.credentials == nil
                            ? "the SOCKS5 proxy requires a user name and password"
                            : "the SOCKS5 proxy accepts none of the offered methods")
                default:
                    throw self.fail(.protocolError, "the SOCKS5 proxy chose a method that was not offered (\(method))")
                }
            case .awaitingAuthStatus:
                guard self.buffer.count >= 2 else { return ProxyHandshakeStep(output: output, state: .needMore) }
                let (version, status) = (self.buffer[0], self.buffer[1])
                self.buffer.consume(2)
                guard version == 0x01 else {
                    throw self.fail(.protocolError, "bad SOCKS5 authentication reply version \(version)")
                }
                guard status == 0x00 else {
                    throw self.fail(.authenticationFailed, code: Int(status), "the SOCKS5 proxy rejected the credentials")
                }
                output += try self.connectRequest()
                self.state = .awaitingReply
            case .awaitingReply:
                guard let length = try self.replyLength() else {
                    return ProxyHandshakeStep(output: output, state: .needMore)
                }
                let code = self.buffer[1]
                guard code == 0x00 else {
                    throw self.fail(
                        .targetRefused, code: Int(code),
                        "the SOCKS5 proxy refused \(self.host):\(self.port): \(Self.meaning(ofReply: code))")
                }
                self.buffer.consume(length)
                let leftover = self.buffer.takeAll()
                self.state = .established
                return ProxyHandshakeStep(output: output, state: .established(leftover: leftover))
            }
        }
    }

    package mutating func receiveEOF() throws(ProxyHandshakeError) -> ProxyHandshakeStep {
        switch self.state {
        case .failed(let error):
            throw error
        case .awaitingAuthStatus:
            // RFC 1929 §2: the server closes after a failure status; some (pproxy) close without one.
            throw self.fail(.authenticationFailed, "the SOCKS5 proxy closed the connection after the credentials")
        default:
            throw self.fail(.closed, "the SOCKS5 proxy closed the connection during the handshake")
        }
    }

    // MARK: Messages

    /// RFC 1929 §2: VER 1, ULEN, UNAME, PLEN, PASSWD.
    private mutating func authenticationRequest() throws(ProxyHandshakeError) -> [UInt8] {
        let username = Array((self.credentials?.username ?? "").utf8)
        let password = Array((self.credentials?.password ?? "").utf8)
        guard (1...255).contains(username.count), (1...255).contains(password.count) else {
            throw self.fail(.invalidConfiguration, "a SOCKS5 user name and password must each be 1 to 255 bytes")
        }
        return [0x01, UInt8(username.count)] + username + [UInt8(password.count)] + password
    }

    /// RFC 1928 §4: VER 5, CMD 1 (CONNECT), RSV, ATYP + DST.ADDR, DST.PORT.
    private mutating func connectRequest() throws(ProxyHandshakeError) -> [UInt8] {
        var request: [UInt8] = [0x05, 0x01, 0x00]
        if let ipv4 = IPAddressLiteral.ipv4(self.host) {
            request += [0x01] + ipv4
        } else if let ipv6 = IPAddressLiteral.ipv6(self.host) {
            request += [0x04] + ipv6
        } else {
            let name = Array(self.host.utf8)
            guard (1...255).contains(name.count) else {
                throw self.fail(.invalidConfiguration, "a host name sent to a SOCKS5 proxy must be 1 to 255 bytes")
            }
            request += [0x03, UInt8(name.count)] + name
        }
        return request + [UInt8(self.port >> 8), UInt8(self.port & 0xFF)]
    }

    /// The length of the reply at the head of the buffer, or `nil` until it is all there.
    private mutating func replyLength() throws(ProxyHandshakeError) -> Int? {
        guard self.buffer.count >= 5 else { return nil }
        guard self.buffer[0] == 0x05 else {
            throw self.fail(.protocolError, "bad SOCKS5 reply version \(self.buffer[0])")
        }
        let addressLength: Int
        switch self.buffer[3] {
        case 0x01: addressLength = 4
        case 0x04: addressLength = 16
        case 0x03: addressLength = 1 + Int(self.buffer[4])
        default:
            // A refusal may carry any address; only a success must be well formed.
            if self.buffer[1] != 0x00 { return self.buffer.count }
            throw self.fail(.protocolError, "bad SOCKS5 reply address type \(self.buffer[3])")
        }
        let length = 4 + addressLength + 2
        return self.buffer.count >= length ? length : nil
    }

    /// RFC 1928 §6 reply codes.
    package static func meaning(ofReply code: UInt8) -> String {
        switch code {
        case 0x01: return "general SOCKS server failure (1)"
        case 0x02: return "connection not allowed by ruleset (2)"
        case 0x03: return "network unreachable (3)"
        case 0x04: return "host unreachable (4)"
        case 0x05: return "connection refused (5)"
        case 0x06: return "TTL expired (6)"
        case 0x07: return "command not supported (7)"
        case 0x08: return "address type not supported (8)"
        default: return "unassigned reply code \(code)"
        }
    }

    private mutating func fail(_ kind: ProxyHandshakeError.Kind, code: Int? = nil, _ message: String) -> ProxyHandshakeError {
        let error = ProxyHandshakeError(kind, code: code, message)
        self.state = .failed(error)
        return error
    }
}
