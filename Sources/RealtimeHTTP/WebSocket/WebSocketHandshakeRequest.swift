package import Foundation
import HTTP1Codec
package import RealtimeTransport
import WebSocketCodec

/// The client's opening handshake request (RFC 6455 §4.1).
package struct WebSocketHandshakeRequest: Sendable {
    /// Where to connect (TLS for `wss`).
    package var host: String
    package var port: UInt16
    package var usesTLS: Bool
    /// Path and query, percent-encoded, never empty.
    package var target: String
    /// `Sec-WebSocket-Key`.
    package var key: String
    package var headers: HTTPHeaders
    package var offersCompression: Bool
    package var subprotocols: [String]

    /// Headers the handshake owns; user-supplied copies are dropped.
    static let reservedHeaders: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-extensions", "sec-websocket-protocol", "content-length", "transfer-encoding",
    ]

    /// Reads a `ws`, `wss` (or `http`, `https`) URL.
    /// - Throws: `.invalidURL` for other schemes, a missing host or CR/LF in headers.
    package init(url: URL, key: String, options: WebSocketOptions) throws(WebSocketError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased()
        else {
            throw WebSocketError(.invalidURL, "not a URL with a scheme")
        }
        switch scheme {
        case "ws", "http": self.usesTLS = false
        case "wss", "https": self.usesTLS = true
        default: throw WebSocketError(.invalidURL, "unsupported scheme \(scheme)")
        }
        guard var host = components.host, !host.isEmpty else {
            throw WebSocketError(.invalidURL, "URL has no host")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        if let port = components.port {
            guard let port = UInt16(exactly: port), port > 0 else { throw WebSocketError(.invalidURL, "bad port") }
            self.port = port
        } else {
            self.port = self.usesTLS ? 443 : 80
        }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        self.target = target
        self.key = key
        self.headers = options.headers
        self.offersCompression = options.enableCompression
        self.subprotocols = options.subprotocols
        for (name, value) in self.headers {
            if (name + value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
                throw WebSocketError(.invalidURL, "header \(name) contains CR or LF")
            }
        }
    }

    /// The `Host` header value: brackets around IPv6 literals, the port unless default.
    var hostHeader: String {
        let name = self.host.contains(":") ? "[\(self.host)]" : self.host
        let defaultPort: UInt16 = self.usesTLS ? 443 : 80
        return self.port == defaultPort ? name : "\(name):\(self.port)"
    }

    /// The request head as bytes.
    package func serialized() -> [UInt8] {
        var head = "GET \(self.target) HTTP/1.1\r\n"
        head += "Host: \(self.hostHeader)\r\n"
        head += "Upgrade: websocket\r\n"
        head += "Connection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(self.key)\r\n"
        head += "Sec-WebSocket-Version: 13\r\n"
        if self.offersCompression {
            head += "Sec-WebSocket-Extensions: \(PerMessageDeflateParameters.clientOffer)\r\n"
        }
        if !self.subprotocols.isEmpty {
            head += "Sec-WebSocket-Protocol: \(self.subprotocols.joined(separator: ", "))\r\n"
        }
        for (name, value) in self.headers where !Self.reservedHeaders.contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }
}
