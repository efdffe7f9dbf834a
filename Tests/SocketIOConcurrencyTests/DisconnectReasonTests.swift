import SocketIOConcurrency
import Testing

@Suite struct DisconnectReasonTests {
    typealias Reason = SocketIOClient.DisconnectReason

    static let upstreamLiterals: [(String, Reason)] = [
        ("Ping timeout", .pingTimeout),
        ("Namespace leave", .namespaceLeave),
        ("Got Disconnect", .gotDisconnect),
        ("Disconnect", .manualDisconnect),
        ("reconnect", .reconnect),
        ("Reconnect Failed", .reconnectFailed),
        ("Socket Disconnected", .socketDisconnected),
        ("Manager Deinit", .managerDeinit),
        ("Adding new engine", .addingNewEngine),
        ("manual reconnect", .manualReconnect),
        ("Error parsing open packet", .openPacketParsingFailed),
        ("Open packet contained no sid", .openPacketMissingSID),
        ("Engine URLSession became invalid", .engineURLSessionInvalid),
    ]

    @Test(arguments: upstreamLiterals)
    func upstreamLiteralMapsToItsCaseAndBack(literal: String, reason: Reason) {
        #expect(Reason(rawReason: literal) == reason)
        #expect(reason.rawReason == literal)
    }

    @Test(arguments: ["io server disconnect", "Engine closed: ☃", " io server disconnect "])
    func otherTextIsKeptUnchanged(text: String) {
        #expect(Reason(rawReason: text) == .unknown(text))
        #expect(Reason(rawReason: text).rawReason == text)
    }

    /// As the seed package: surrounding whitespace and letter case are ignored.
    @Test(arguments: [
        ("ping timeout", Reason.pingTimeout), (" Ping timeout", .pingTimeout),
        ("PING TIMEOUT\n", .pingTimeout), ("\tgot disconnect ", .gotDisconnect),
        ("open packet contained no SID", .openPacketMissingSID),
        (" engine urlsession became invalid", .engineURLSessionInvalid),
    ])
    func rawReasonIgnoresWhitespaceAndCase(text: String, reason: Reason) {
        #expect(Reason(rawReason: text) == reason)
    }

    @Test func missingReasonIsNone() {
        #expect(Reason(rawReason: "  \n") == Reason.none)
        #expect(Reason(rawReason: nil) == Reason.none)
        #expect(Reason(rawReason: "") == Reason.none)
        #expect(Reason.none.rawReason == nil)
    }
}

@Suite struct ReconnectAttemptTests {
    @Test(arguments: [
        (5, SocketIOClient.ReconnectAttempt.remaining(5)), (0, .remaining(0)),
        (-1, .unlimited(raw: -1)), (-7, .unlimited(raw: -7)),
    ])
    func signSelectsTheCase(raw: Int, attempt: SocketIOClient.ReconnectAttempt) {
        #expect(SocketIOClient.ReconnectAttempt(rawRemainingAttempts: raw) == attempt)
        #expect(attempt.rawValue == raw)
    }
}
