package import Foundation

/// Something that opens WebSocket connections (RFC 6455).
///
/// Implementations: `WebSocketClient` (RealtimeHTTP's RFC 6455 client over RealtimeIO) and
/// `URLSessionWebSocketTransport` (`URLSessionWebSocketTask`; it connects on Apple platforms
/// only, since Linux's FoundationNetworking has no WebSocket support in its libcurl).
package protocol WebSocketTransport: Sendable {
    func connect(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> any WebSocketConnection
}
