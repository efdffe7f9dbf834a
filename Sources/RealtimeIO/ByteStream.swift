package import ProxyCodec

/// A connected, ordered, reliable byte stream: TCP, or TLS over TCP.
///
/// Implementations are driven by the process-wide event loop; every method suspends
/// instead of blocking a thread.
///
/// - Important: Reads are pulled: the socket is read only while a caller waits in
///   ``read(maxLength:)``, so a consumer that stops reading stops the peer through TCP
///   flow control (backpressure). One reader and one writer may run concurrently;
///   two concurrent readers (or writers) are a programming error reported as
///   ``NetworkError/Kind-swift.enum/concurrentOperation``.
package protocol ByteStream: AnyObject, Sendable {
    /// Reads at least one byte and at most `maxLength` bytes.
    /// - Returns: the bytes read, or an empty array once the peer closed its side (EOF).
    func read(maxLength: Int) async throws(NetworkError) -> [UInt8]

    /// Writes all of `bytes`; returns once the kernel (or TLS layer) accepted every byte.
    func write(_ bytes: [UInt8]) async throws(NetworkError)

    /// Writes on the calling thread, without suspending, as much of `bytes` as the stream takes
    /// right now; the caller finishes the rest with ``write(_:)``.
    ///
    /// For a sender on a thread that is not the event loop's (a Dispatch queue delivering a
    /// user's handler): a small write costs one system call there instead of waking the loop.
    ///
    /// - Returns: how many leading bytes of `bytes` were taken: `bytes.count`, fewer when the
    ///   kernel's buffer is full, or 0 when another write is in progress (then nothing was
    ///   written). Never blocks.
    /// - Throws: the same errors as ``write(_:)``, without waiting for anything.
    func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int

    /// `false` when ``writeImmediately(_:)`` never takes bytes (callers skip preparing them).
    var supportsImmediateWrites: Bool { get }

    /// Closes the stream. Idempotent; pending reads and writes fail with `.closed`.
    func close()
}

extension ByteStream {
    /// Takes nothing: every write goes through ``write(_:)``.
    package func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int { 0 }

    package var supportsImmediateWrites: Bool { false }
}

/// Where to connect, and how.
package struct Endpoint: Sendable, Hashable {
    package var host: String
    package var port: UInt16
    /// `nil` for plain TCP.
    package var tls: TLSConfiguration?
    /// A proxy to tunnel through (`nil`: connect directly). TLS then runs inside the tunnel
    /// and is verified against `host`, never the proxy's name.
    package var proxy: ProxyServer?

    package init(host: String, port: UInt16, tls: TLSConfiguration? = nil, proxy: ProxyServer? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.proxy = proxy
    }
}

/// TLS client settings. Verification is on by default.
package struct TLSConfiguration: Sendable, Hashable {
    package enum CertificateVerification: Sendable, Hashable {
        /// Chain against the trust roots and host name against the certificate (the default).
        case fullVerification
        /// Chain only: accepts any host name. For tests and pinned private deployments.
        case noHostnameVerification
        /// No verification at all: accepts self-signed certificates. Never the default.
        case none
    }

    package var verification: CertificateVerification = .fullVerification
    /// PEM-encoded CA certificates trusted in addition to the system store.
    package var additionalTrustRootsPEM: [String] = []
    /// Overrides the name sent in SNI and checked against the certificate (default: the host).
    package var serverName: String?
    /// ALPN protocols to offer, e.g. `["http/1.1"]`.
    package var applicationProtocols: [String] = []

    package init(verification: CertificateVerification = .fullVerification,
                 additionalTrustRootsPEM: [String] = [],
                 serverName: String? = nil,
                 applicationProtocols: [String] = []) {
        self.verification = verification
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
        self.serverName = serverName
        self.applicationProtocols = applicationProtocols
    }
}

/// Every failure of the I/O layer.
package struct NetworkError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case invalidAddress
        case nameResolutionFailed
        case connectionRefused
        case connectTimedOut
        case connectionReset
        case closed
        case tlsHandshakeFailed
        case certificateUntrusted
        case certificateExpired
        case hostnameMismatch
        case concurrentOperation
        case cancelled
        case systemError
        /// The proxy rejected or demanded credentials (HTTP 407, SOCKS5 authentication).
        case proxyAuthenticationFailed
        /// The proxy refused to open a tunnel to the target: `code` is the HTTP status of
        /// its reply to CONNECT, or the SOCKS5 reply code (RFC 1928 §6).
        case proxyRefused(code: Int)
        /// The proxy broke its protocol or closed the connection during the handshake.
        case proxyFailed
    }

    package var kind: Kind
    /// Human-readable detail (never contains payload bytes or credentials).
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
