package import RealtimeTime

/// Settings for one WebSocket connection.
package struct WebSocketOptions: Sendable {
    /// Extra headers (and `Cookie`) sent on the upgrade request.
    package var headers: HTTPHeaders
    /// Largest message accepted after reassembly; larger ones close with 1009.
    package var maxMessageSize: Int
    /// Offer permessage-deflate (RFC 7692).
    package var enableCompression: Bool
    package var connectTimeout: TimeAmount
    package var tls: TLSConfiguration
    /// Sub-protocols offered in `Sec-WebSocket-Protocol`.
    package var subprotocols: [String]
    /// How long `close(code:reason:)` waits for the server's close frame before closing the socket.
    package var closeTimeout: TimeAmount = .seconds(2)
    /// The proxy to tunnel through; direct by default. The native client tunnels through it;
    /// `URLSessionWebSocketTransport` maps it to `connectionProxyDictionary` (see there).
    package var proxy: ProxyConfiguration = .direct

    package init(
        headers: HTTPHeaders = [:],
        maxMessageSize: Int = 16 << 20,
        enableCompression: Bool = false,
        connectTimeout: TimeAmount = .seconds(20),
        tls: TLSConfiguration = TLSConfiguration(),
        subprotocols: [String] = []
    ) {
        self.headers = headers
        self.maxMessageSize = maxMessageSize
        self.enableCompression = enableCompression
        self.connectTimeout = connectTimeout
        self.tls = tls
        self.subprotocols = subprotocols
    }
}
