package import RealtimeTime

/// Opens ``ByteStream``s: the single entry point of the native transport.
///
/// ```swift
/// let stream = try await NetworkConnector.connect(
///     to: Endpoint(host: "example.com", port: 443, tls: TLSConfiguration()),
///     timeout: .seconds(10), on: group.next())
/// try await stream.write(Array("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8))
/// let reply = try await stream.read(maxLength: 65_536)
/// ```
package enum NetworkConnector {
    /// Resolves `endpoint.host`, connects over TCP (trying each address in the resolver's order),
    /// and performs the TLS handshake when `endpoint.tls` is set; the connection lives on
    /// `loop` (its socket, timers and TLS flusher), and the name is resolved by the resolver
    /// threads of `loop`'s group.
    ///
    /// With ``Endpoint/proxy`` set, the TCP connection goes to the proxy, which is asked for a
    /// tunnel to `endpoint.host:endpoint.port` (HTTP CONNECT or SOCKS5, see
    /// ``openTunnel(over:toHost:port:via:)``); the TLS handshake then runs through the tunnel
    /// with SNI and verification for `endpoint.host`.
    ///
    /// `timeout` bounds the whole operation: name resolution, TCP connect, proxy handshake and
    /// TLS handshake. When a
    /// name has several addresses, they are tried Happy-Eyeballs style (RFC 8305, simplified):
    /// families interleaved, a new attempt every 250 ms or as soon as one fails, the first
    /// connection wins and the others are closed.
    ///
    /// - Parameters:
    ///   - endpoint: host (name, IPv4 or IPv6 literal), port, and optional TLS settings.
    ///   - timeout: the deadline for the stream to be ready.
    ///   - loop: the event loop the connection lives on (an ``EventLoopGroup``'s `next()`).
    /// - Returns: a connected stream (TCP, or TLS over TCP) with `TCP_NODELAY` set.
    /// - Throws: `.invalidAddress`, `.nameResolutionFailed`, `.connectionRefused`,
    ///   `.connectTimedOut`, `.cancelled` (the task was cancelled; the socket is closed),
    ///   the TLS errors (`.tlsHandshakeFailed`, `.certificateUntrusted`, `.certificateExpired`,
    ///   `.hostnameMismatch`), the proxy errors (`.proxyAuthenticationFailed`,
    ///   `.proxyRefused(code:)`, `.proxyFailed`), `.tooManyOpenFiles` (the process or system
    ///   is out of file descriptors), `.eventLoopShutDown` (`loop` was shut down, before or
    ///   during the connect), or `.systemError`.
    /// - Important: Never blocks a thread: resolution runs on dedicated resolver threads and
    ///   socket waits are resumed by the ``EventLoop``.
    package static func connect(
        to endpoint: Endpoint, timeout: TimeAmount, on loop: EventLoop
    ) async throws(NetworkError) -> any ByteStream {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        let deadline = MonotonicInstant.now + timeout
        do throws(NetworkError) {
            // Through a proxy, TCP goes to the proxy and the handshake opens a tunnel to the
            // endpoint; TLS then runs inside it, verified against the endpoint's name.
            let first: (host: String, port: UInt16) = endpoint.proxy.map { ($0.host, $0.port) } ?? (endpoint.host, endpoint.port)
            let addresses = try await loop.resolver.resolve(
                host: first.host, port: first.port, deadline: deadline, on: loop)
            let tcp = try await self.connectFirst(of: addresses, deadline: deadline, on: loop)
            if let proxy = endpoint.proxy {
                try await self.openTunnel(over: tcp, toHost: endpoint.host, port: endpoint.port, via: proxy)
            }
            guard let tls = endpoint.tls else {
                tcp.core.disarmConnectDeadline()
                return tcp
            }
            #if canImport(CRealtimeOpenSSL) && !REALTIME_NO_NATIVE_STACK
            return try await TLSStream.handshake(over: tcp, host: endpoint.host, configuration: tls)
            #else
            _ = tls
            tcp.close()
            throw NetworkError(.tlsHandshakeFailed, "TLS is not available on this platform")
            #endif
        } catch {
            if Task.isCancelled, error.kind != .cancelled {
                throw NetworkError(.cancelled, "connecting to \(endpoint.host):\(endpoint.port) was cancelled")
            }
            throw error
        }
        #else
        _ = loop
        throw NetworkError(.systemError, "the native transport is only available on Linux")
        #endif
    }

}
