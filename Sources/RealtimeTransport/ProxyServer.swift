/// A proxy to tunnel a connection through: its protocol, address and credentials.
///
/// A value type of the transport seam (the native stack's ProxyCodec opens the tunnel, see
/// `handshake(toHost:port:)`; URLSession gets it as `connectionProxyDictionary`).
///
/// Equal servers share pooled connections (``Hashable`` includes the credentials, so two
/// users of one proxy never share a tunnel). ``description`` never shows the password.
package struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// An HTTP proxy, asked for a tunnel with `CONNECT` (RFC 9110 §9.3.6).
        case httpConnect
        /// A SOCKS5 proxy (RFC 1928); the target goes as a name, resolved by the proxy.
        case socks5
    }

    package var kind: Kind
    package var host: String
    package var port: UInt16
    package var credentials: ProxyCredentials?

    package init(kind: Kind, host: String, port: UInt16, credentials: ProxyCredentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    package var description: String {
        let scheme = self.kind == .httpConnect ? "http" : "socks5"
        let user = self.credentials.map { "\($0.username):***@" } ?? ""
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(scheme)://\(user)\(host):\(self.port)"
    }
}
