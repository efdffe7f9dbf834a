import RealtimeEncoding

/// One Engine.IO message in text form, as a client receives it: the one classifier that
/// tells a packet from a server's error object and from text that is neither.
///
/// A text message is a packet `<type digit>[<data>]`, a binary message in its polling form
/// (`b<base64>`; `b4<base64>` in v3, engine.io-protocol v3 "Encoding"), or, instead of a
/// packet, the error object a server sends (``EngineServerError``). socket.io-client-swift
/// 16.x classifies what its `parseEngineMessage(_:)` receives the same way
/// (`parseEngineMessage`, `handleBase64`, `checkAndHandleEngineError`).
///
/// ```swift
/// EngineTextMessage("4hello", version: .v4)    // .packet(.message("hello"))
/// EngineTextMessage("bAAEC", version: .v4)     // .packet(.binaryMessage([0, 1, 2]))
/// EngineTextMessage(#"{"code":1,"message":"Session ID unknown"}"#, version: .v4)
/// // .serverError(.message("Session ID unknown"))
/// EngineTextMessage("garbage", version: .v4)   // .unknown
/// ```
package enum EngineTextMessage: Sendable, Hashable {
    /// A packet; a `b` record is a ``EnginePacket/binaryMessage(_:)``.
    case packet(EnginePacket)
    /// A server's error object instead of a packet.
    case serverError(EngineServerError)
    /// A `b` record whose text is not base64.
    case invalidBinary
    /// Neither a packet nor an object (upstream reports "Got unknown error from server").
    case unknown

    /// Classifies `text`.
    ///
    /// A binary record's bytes outside the base64 alphabet (a line break) are skipped, as
    /// upstream's `Data(base64Encoded:options: .ignoreUnknownCharacters)` does.
    package init(_ text: String, version: EngineProtocolVersion) {
        let binaryPrefix = version == .v3 ? "b4" : "b"
        if text.hasPrefix(binaryPrefix) {
            var base64 = Array(text.utf8.dropFirst(binaryPrefix.utf8.count))
            base64.removeAll { !Base64.isAlphabetOrPadding($0) }
            if let bytes = base64.withUnsafeBufferPointer({ Base64.decode($0) }) {
                self = .packet(.binaryMessage(bytes))
            } else {
                self = .invalidBinary
            }
        } else if let packet = try? EnginePacket(webSocketText: text) {
            self = .packet(packet)
        } else if let error = EngineServerError(text: text) {
            self = .serverError(error)
        } else {
            self = .unknown
        }
    }
}
