package import Foundation
package import HTTP1Codec
package import RealtimeIO

/// Something that opens WebSocket connections (RFC 6455).
///
/// Implementations: ``WebSocketClient`` (native, over ``RealtimeIO``) and, on Apple
/// platforms only, `URLSessionWebSocketTransport`.
package protocol WebSocketTransport: Sendable {
    func connect(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> any WebSocketConnection
}

/// Settings for one WebSocket connection.
package struct WebSocketOptions: Sendable {
    /// Extra headers (and `Cookie`) sent on the upgrade request.
    package var headers: HTTPHeaders
    /// Largest message accepted after reassembly; larger ones close with 1009.
    package var maxMessageSize: Int
    /// Offer permessage-deflate (RFC 7692).
    package var enableCompression: Bool
    package var connectTimeout: Duration
    package var tls: TLSConfiguration
    /// Sub-protocols offered in `Sec-WebSocket-Protocol`.
    package var subprotocols: [String]
    /// How long `close(code:reason:)` waits for the server's close frame before closing the socket.
    package var closeTimeout: Duration = .seconds(2)
    /// The proxy to tunnel through (native client only); direct by default.
    package var proxy: ProxyConfiguration = .direct

    package init(headers: HTTPHeaders = [:],
                 maxMessageSize: Int = 16 << 20,
                 enableCompression: Bool = false,
                 connectTimeout: Duration = .seconds(20),
                 tls: TLSConfiguration = TLSConfiguration(),
                 subprotocols: [String] = []) {
        self.headers = headers
        self.maxMessageSize = maxMessageSize
        self.enableCompression = enableCompression
        self.connectTimeout = connectTimeout
        self.tls = tls
        self.subprotocols = subprotocols
    }
}

/// A complete WebSocket data message.
package enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])
}

/// An open WebSocket. Unicast receive: one task receives, any task may send.
package protocol WebSocketConnection: AnyObject, Sendable {
    /// Headers of the server's 101 response.
    var responseHeaders: HTTPHeaders { get }
    /// Sends one message (fragmenting is the implementation's choice).
    func send(_ message: WebSocketMessage) async throws(WebSocketError)
    /// Sends messages in order, each as its own message; an implementation may write them
    /// together (the native client: one write for the batch). Stops at the first failure.
    func send(contentsOf messages: [WebSocketMessage]) async throws(WebSocketError)
    /// Sends messages in order on the calling thread, without suspending, when the connection
    /// can (see ``WebSocketClientConnection/sendImmediately(contentsOf:)``).
    /// - Returns: `false` when nothing was sent: use ``send(contentsOf:)``.
    func sendImmediately(contentsOf messages: [WebSocketMessage]) throws(WebSocketError) -> Bool
    /// The next message; `nil` once the close handshake finished. Pings are answered inside.
    func receive() async throws(WebSocketError) -> WebSocketMessage?
    /// Starts the close handshake and waits (briefly) for the peer's close; then closes the socket.
    func close(code: UInt16, reason: String) async
    /// The close code and reason received from the peer, once closed.
    var closeStatus: (code: UInt16, reason: String)? { get }
}

extension WebSocketConnection {
    /// Sends nothing: every send goes through ``send(contentsOf:)``.
    package func sendImmediately(contentsOf messages: [WebSocketMessage]) throws(WebSocketError) -> Bool { false }

    /// Sends the messages one ``send(_:)`` at a time, in order.
    package func send(contentsOf messages: [WebSocketMessage]) async throws(WebSocketError) {
        for message in messages {
            try await self.send(message)
        }
    }
}

/// Every failure of a WebSocket connection.
package struct WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case invalidURL
        case network(NetworkError.Kind)
        case handshakeFailed(status: Int)
        case invalidAcceptKey
        case protocolError
        case invalidUTF8
        case messageTooLarge
        case closed(code: UInt16)
        case timedOut
        case cancelled
        case unsupported
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package init(_ error: NetworkError) {
        self.kind = .network(error.kind)
        self.message = error.message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
