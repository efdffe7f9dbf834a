/// A violation of RFC 6455 (or RFC 7692) found while decoding, with the close code the
/// endpoint must send before failing the connection (RFC 6455 §7.1.7, §7.4.1).
package struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status code to put in the close frame: 1002, 1007, 1009 or 1010.
    package var closeCode: UInt16
    /// What was wrong (never contains payload bytes).
    package var message: String

    package init(closeCode: UInt16, _ message: String) {
        self.closeCode = closeCode
        self.message = message
    }

    package static func protocolError(_ message: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: WebSocketCloseCode.protocolError, message)
    }

    package static func invalidUTF8(_ message: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: WebSocketCloseCode.invalidFramePayloadData, message)
    }

    package static func messageTooBig(_ message: String) -> WebSocketProtocolError {
        WebSocketProtocolError(closeCode: WebSocketCloseCode.messageTooBig, message)
    }

    package var description: String { "WebSocket protocol error \(self.closeCode): \(self.message)" }
}
