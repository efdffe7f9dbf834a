import Testing

@testable import EngineIOProtocol

/// `EngineTextMessage` classifies a text message as socket.io-client-swift 16.x's
/// `parseEngineMessage(_:)` does (`parseEngineMessage`, `handleBase64`,
/// `checkAndHandleEngineError`); SocketIO's `SocketEngine.parseEngineMessage(_:)` acts on it.
@Suite struct EngineTextMessageTests {
    @Test(arguments: [
        (#"4["a",1]"#, EngineProtocolVersion.v4, EngineTextMessage.packet(.message(#"["a",1]"#))),
        ("4", .v4, .packet(.message(""))),
        ("bAAEC", .v4, .packet(.binaryMessage([0, 1, 2]))),
        ("bAA\nEC", .v4, .packet(.binaryMessage([0, 1, 2]))),
        ("bA!", .v4, .invalidBinary),
        ("b4AAEC", .v3, .packet(.binaryMessage([0, 1, 2]))),
        ("bAAEC", .v3, .unknown),
        (#"{"code":1,"message":"Session ID unknown"}"#, .v4, .serverError(.message("Session ID unknown"))),
        (#"{"code":3,"message":"Bad request"}"#, .v3, .serverError(.message("Bad request"))),
        (#"{"code":1}"#, .v4, .serverError(.withoutMessage)),
        (#"{"message":5}"#, .v4, .serverError(.withoutMessage)),
        ("[1,2]", .v4, .unknown),
        ("garbage", .v4, .unknown),
        ("", .v4, .unknown),
        ("7x", .v4, .unknown),
        ("2", .v4, .packet(.ping(""))),
        ("3probe", .v4, .packet(.pong("probe"))),
        ("6", .v4, .packet(.noop)),
    ])
    func classifiesAsUpstream(_ text: String, _ version: EngineProtocolVersion, _ expected: EngineTextMessage) {
        #expect(EngineTextMessage(text, version: version) == expected)
    }
}
