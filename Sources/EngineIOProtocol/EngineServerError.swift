import RealtimeEncoding

/// The error object an Engine.IO server sends instead of a payload.
///
/// A server that refuses a request (an unknown `sid`, a bad transport, a refused handshake)
/// answers with a JSON object such as `{"code":1,"message":"Session ID unknown"}` (engine.io's
/// `Server.errorMessages`; python-engineio answers the same shape). No packet starts with `{`
/// (a type digit or, in a v3 payload, a length does), so a body or WebSocket text message that
/// does is one of these. socket.io-client-swift 16.x checks for it before parsing packets
/// (`checkAndHandleEngineError(_:)`): an object with a string `message` is an error that ends
/// the session; any other object is ignored.
///
/// ```swift
/// EngineServerError(text: #"{"code":1,"message":"Session ID unknown"}"#)  // .message("Session ID unknown")
/// EngineServerError(text: #"{"code":1}"#)                                // .withoutMessage
/// EngineServerError(text: "4hello")                                      // nil: a packet
/// ```
package enum EngineServerError: Sendable, Hashable {
    /// An object with a string `message`: the session ends with this reason.
    case message(String)
    /// An object without a string `message`: nothing to report.
    case withoutMessage

    /// Reads `text` as a server error object; `nil` when it is not a JSON object (a packet).
    package init?(text: String) {
        guard text.utf8.first == UInt8(ascii: "{"), let value = try? JSONValue(parsing: text), case .object = value else {
            return nil
        }
        if let reason = value["message"]?.stringValue {
            self = .message(reason)
        } else {
            self = .withoutMessage
        }
    }

    /// Reads a polling response body as a server error object; `nil` when it does not start
    /// with `{` (a payload) or is not a JSON object in UTF-8.
    package init?(body: [UInt8]) {
        guard body.first == UInt8(ascii: "{") else { return nil }
        let text = body.withUnsafeBufferPointer { buffer -> String? in
            UTF8Validator.firstInvalidOffset(in: buffer) == nil ? String(decoding: buffer, as: UTF8.self) : nil
        }
        guard let text else { return nil }
        self.init(text: text)
    }
}
