import EngineIOProtocol
import Foundation

/// What ``SocketEngine/parseEngineMessage(_:)`` does with one raw Engine.IO message, decided
/// as socket.io-client-swift 16.x decides it (`SocketEngine.parseEngineMessage(_:)`,
/// `handleBase64(message:)`, `checkAndHandleEngineError(_:)`).
enum EngineMessageDisposition: Equatable {
    /// `4` + text: a Socket.IO packet for the client's `parseEngineMessage(_:)`.
    case message(String)
    /// `b` + base64 (`b4` + base64 for `.version(.two)`): binary for the client's
    /// `parseEngineBinaryData(_:)`. Unknown characters in the base64 are skipped, as upstream does.
    case binary(Data)
    /// Another packet type (`0`-`3`, `5`, `6`): the protocol machine handles those on the
    /// network path.
    case control(SocketEnginePacketType)
    /// A JSON object with a string `message` (`{"code":1,"message":"Session ID unknown"}`):
    /// upstream's `didError(reason:)`, an `error` client event, then the engine closes.
    case serverError(String)
    /// Not a packet and not a server error: upstream reports
    /// "Got unknown error from server <text>" (an `error` client event) and goes on.
    case unknown(String)
    /// Nothing to do: a JSON object without a string `message`, or undecodable base64.
    case ignored

    init(_ message: String, version: SocketIOVersion) {
        if message.hasPrefix(version == .two ? "b4" : "b") {
            let base64 = message.dropFirst(version == .two ? 2 : 1)
            if let data = Data(base64Encoded: String(base64), options: .ignoreUnknownCharacters) {
                self = .binary(data)
            } else {
                self = .ignored
            }
            return
        }
        guard let type = SocketEnginePacketType(rawValue: message.first?.wholeNumberValue ?? -1) else {
            self = EngineMessageDisposition.serverError(in: message) ?? .unknown("Got unknown error from server \(message)")
            return
        }
        self = type == .message ? .message(String(message.dropFirst())) : .control(type)
    }

    /// `.serverError` for a JSON object with a string `message`, `.ignored` for any other
    /// JSON object, `nil` when `text` is not a JSON object (EngineIOProtocol's
    /// ``EngineServerError``).
    static func serverError(in text: String) -> EngineMessageDisposition? {
        switch EngineServerError(text: text) {
        case .message(let reason)?: return .serverError(reason)
        case .withoutMessage?: return .ignored
        case nil: return nil
        }
    }
}
