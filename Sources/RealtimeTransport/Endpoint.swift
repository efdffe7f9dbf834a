/// Where to connect, and how.
package struct Endpoint: Sendable, Hashable {
    package var host: String
    package var port: UInt16
    /// `nil` for plain TCP.
    package var tls: TLSConfiguration?

    package init(host: String, port: UInt16, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}
