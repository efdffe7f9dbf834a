package import HTTP1Codec
import RealtimeEncoding
package import RealtimeTransport

/// The client side of an HTTP CONNECT tunnel (RFC 9110 §9.3.6) as a ``ProxyHandshake``.
///
/// Sends `CONNECT host:port HTTP/1.1` with `Host` and, given credentials,
/// `Proxy-Authorization: Basic` (RFC 7617; RFC 9110 §11.7.2); reads the reply head with
/// ``HTTPResponseParser`` (so its limits apply). A 2xx reply establishes the tunnel; the bytes
/// after its head are the tunnel's. 407 (or 401) fails with `.authenticationFailed`, any other status
/// with `.targetRefused`, both carrying the status as ``ProxyHandshakeError/code``.
///
/// - Important: A value type with no locking; the owner serializes access.
package struct HTTPConnectHandshake: ProxyHandshake {
    private enum State: Sendable {
        case idle
        case awaitingReply
        case established
        case failed(ProxyHandshakeError)
    }

    private let authority: String
    private let credentials: ProxyCredentials?
    private var parser: HTTPResponseParser
    private var state: State = .idle

    /// - Parameters:
    ///   - host: the target's host name or IP literal (IPv6 without brackets).
    ///   - port: the target's port.
    ///   - credentials: sent as Basic `Proxy-Authorization` when given.
    ///   - limits: bounds on the reply head.
    package init(
        host: String, port: UInt16, credentials: ProxyCredentials?,
        limits: HTTPParserLimits = HTTPParserLimits(maxHeaderBytes: 16 * 1024, maxHeaderCount: 64)
    ) {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        self.authority = "\(bracketed):\(port)"
        self.credentials = credentials
        self.parser = HTTPResponseParser(limits: limits)
    }

    package mutating func start() -> [UInt8] {
        self.state = .awaitingReply
        self.parser.expectResponse(toMethod: "CONNECT")
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: self.authority)
        if let credentials = self.credentials {
            let token = Base64.encodedString(Array("\(credentials.username):\(credentials.password)".utf8))
            headers.add(name: "Proxy-Authorization", value: "Basic \(token)")
        }
        return HTTPRequestWriter.serialize(method: "CONNECT", target: self.authority, headers: headers, body: nil)
    }

    package mutating func receive(_ bytes: [UInt8]) throws(ProxyHandshakeError) -> ProxyHandshakeStep {
        switch self.state {
        case .failed(let error):
            throw error
        case .idle, .established:
            throw self.fail(ProxyHandshakeError(.protocolError, "bytes from the proxy outside its reply"))
        case .awaitingReply:
            break
        }
        self.parser.append(bytes)
        let event: HTTPResponseEvent?
        do throws(HTTPParseError) {
            event = try self.parser.next()
        } catch {
            throw self.fail(ProxyHandshakeError(.protocolError, "malformed reply to CONNECT: \(error.message)"))
        }
        guard case .head(let head)? = event else { return ProxyHandshakeStep(state: .needMore) }
        switch head.status {
        case 200..<300:
            self.state = .established
            return ProxyHandshakeStep(state: .established(leftover: self.parser.takeRemainingBytes()))
        case 407, 401:
            // 407 is the proxy's status (RFC 9110 §15.5.8); tinyproxy 1.11 answers wrong
            // credentials with 401, which a CONNECT to a proxy cannot mean otherwise.
            let detail =
                self.credentials == nil
                ? "the proxy requires authentication"
                : "the proxy rejected the credentials"
            throw self.fail(
                ProxyHandshakeError(
                    .authenticationFailed, code: head.status,
                    "\(detail) (\(head.status) \(head.reason))"))
        default:
            throw self.fail(
                ProxyHandshakeError(
                    .targetRefused, code: head.status,
                    "the proxy refused CONNECT \(self.authority) (\(head.status) \(head.reason))"))
        }
    }

    package mutating func receiveEOF() throws(ProxyHandshakeError) -> ProxyHandshakeStep {
        if case .failed(let error) = self.state { throw error }
        throw self.fail(ProxyHandshakeError(.closed, "the proxy closed the connection before answering CONNECT"))
    }

    private mutating func fail(_ error: ProxyHandshakeError) -> ProxyHandshakeError {
        self.state = .failed(error)
        return error
    }
}
