#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import ProxyCodec

/// The thin I/O driver of a ``ProxyHandshake``: runs it over a connected ``TCPStream`` to the
/// proxy, so the stream becomes a tunnel to the target.
extension NetworkConnector {
    /// Bytes asked for per read during the handshake (a reply head is at most 16 KiB).
    static let proxyReadSize = 4096

    /// Opens a tunnel to `host:port` through `proxy` over `tcp` (connected to the proxy, its
    /// connect deadline still armed, so the handshake shares the connect timeout).
    ///
    /// - Throws: `.proxyAuthenticationFailed`, `.proxyRefused(code:)`, `.proxyFailed`, or the
    ///   stream's errors (`.connectTimedOut`, `.cancelled`, `.connectionReset`...). The stream is
    ///   closed on failure.
    static func openTunnel(
        over tcp: TCPStream, toHost host: String, port: UInt16,
        via proxy: ProxyServer
    ) async throws(NetworkError) {
        var handshake = proxy.handshake(toHost: host, port: port)
        do throws(NetworkError) {
            let greeting = handshake.start()
            try await tcp.core.send(greeting, range: greeting.indices)
            let buffer = tcp.readBuffer.bytes
            while true {
                let count = try await tcp.core.receive(
                    into: UnsafeMutableRawBufferPointer(
                        rebasing: buffer[0..<min(Self.proxyReadSize, buffer.count)]))
                let step: ProxyHandshakeStep
                do throws(ProxyHandshakeError) {
                    step =
                        count == 0
                        ? try handshake.receiveEOF()
                        : try handshake.receive([UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
                } catch {
                    throw Self.networkError(error, proxy: proxy)
                }
                if !step.output.isEmpty {
                    try await tcp.core.send(step.output, range: step.output.indices)
                }
                if case .established(let leftover) = step.state {
                    // The client speaks first in every protocol tunnelled here (HTTP, TLS,
                    // WebSocket), so bytes from the target before that are a broken proxy.
                    guard leftover.isEmpty else {
                        throw NetworkError(.proxyFailed, "the proxy \(proxy) sent bytes before the tunnel was used")
                    }
                    return
                }
            }
        } catch {
            tcp.close()
            throw error
        }
    }

    static func networkError(_ error: ProxyHandshakeError, proxy: ProxyServer) -> NetworkError {
        let message = "proxy \(proxy): \(error.message)"
        switch error.kind {
        case .authenticationFailed: return NetworkError(.proxyAuthenticationFailed, message)
        case .targetRefused: return NetworkError(.proxyRefused(code: error.code ?? 0), message)
        case .protocolError, .closed, .invalidConfiguration: return NetworkError(.proxyFailed, message)
        }
    }
}
#endif
