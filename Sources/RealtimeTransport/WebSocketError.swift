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
