/// A client-side proxy handshake as a sans-I/O state machine: the driver sends ``start()``'s
/// bytes, then feeds every byte the proxy sends to ``receive(_:)`` and sends what each step
/// returns, until a step reports the tunnel established.
///
/// ```swift
/// var handshake = SOCKS5Handshake(host: "example.com", port: 443, credentials: nil)
/// try await stream.write(handshake.start())
/// while true {
///     let bytes = try await stream.read(maxLength: 4096)
///     let step = bytes.isEmpty ? try handshake.receiveEOF() : try handshake.receive(bytes)
///     if !step.output.isEmpty { try await stream.write(step.output) }
///     if case .established = step.state { break }
/// }
/// ```
///
/// Implementations: ``HTTPConnectHandshake`` (RFC 9110 §9.3.6, Basic auth from RFC 7617) and
/// ``SOCKS5Handshake`` (RFC 1928 with RFC 1929 username/password).
package protocol ProxyHandshake: Sendable {
    /// The first bytes to send (the CONNECT request, or the SOCKS5 greeting). Call once.
    mutating func start() -> [UInt8]

    /// Takes bytes from the proxy (any split) and says what to send and whether the tunnel is up.
    /// - Throws: ``ProxyHandshakeError``; the machine then stays failed.
    mutating func receive(_ bytes: [UInt8]) throws(ProxyHandshakeError) -> ProxyHandshakeStep

    /// The proxy closed the connection before the tunnel was established.
    /// - Throws: always: the error that explains the close at this stage.
    mutating func receiveEOF() throws(ProxyHandshakeError) -> ProxyHandshakeStep
}

/// What the driver does after one input.
package struct ProxyHandshakeStep: Sendable, Hashable {
    package enum State: Sendable, Hashable {
        /// Read more bytes from the proxy.
        case needMore
        /// The tunnel is up. `leftover` are bytes the proxy sent after its reply: they belong to
        /// the tunnelled connection.
        case established(leftover: [UInt8])
    }

    /// Bytes to send to the proxy now (empty for none).
    package var output: [UInt8]
    package var state: State

    package init(output: [UInt8] = [], state: State) {
        self.output = output
        self.state = state
    }
}

/// Why a proxy handshake failed.
package struct ProxyHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// The proxy rejected (or demanded) credentials: HTTP 407, SOCKS5 auth failure or no
        /// acceptable authentication method.
        case authenticationFailed
        /// The proxy refused to open the tunnel to the target: an HTTP status other than 2xx
        /// and 407, or a SOCKS5 reply code other than 0.
        case targetRefused
        /// The proxy's bytes do not follow the protocol.
        case protocolError
        /// The proxy closed the connection during the handshake.
        case closed
        /// The configuration cannot be sent (a user name or password longer than 255 bytes,
        /// a host name longer than 255 bytes).
        case invalidConfiguration
    }

    package var kind: Kind
    /// The HTTP status (CONNECT) or SOCKS5 reply code, when the proxy sent one.
    package var code: Int?
    /// Human-readable detail; never contains credentials.
    package var message: String

    package init(_ kind: Kind, code: Int? = nil, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
