package import RealtimeTransport

/// The handshake (sans-I/O) of each proxy kind; the value type lives in the transport seam.
extension ProxyServer {
    /// The handshake that opens a tunnel to `host:port` through this proxy.
    package func handshake(toHost host: String, port: UInt16) -> any ProxyHandshake {
        switch self.kind {
        case .httpConnect: return HTTPConnectHandshake(host: host, port: port, credentials: self.credentials)
        case .socks5: return SOCKS5Handshake(host: host, port: port, credentials: self.credentials)
        }
    }
}
