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
        /// The process or the system ran out of file descriptors (`EMFILE`, `ENFILE`): no
        /// socket could be opened. Closing connections (or raising `RLIMIT_NOFILE`) makes
        /// room; nothing was sent.
        case tooManyOpenFiles
        /// The event loop the connection lives on was shut down (or could not start): its
        /// pending and later reads, writes, connects and timers fail with this.
        case eventLoopShutDown
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
