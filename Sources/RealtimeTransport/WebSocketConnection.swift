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
