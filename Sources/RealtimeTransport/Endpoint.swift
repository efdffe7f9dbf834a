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
