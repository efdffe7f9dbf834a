import EngineIOProtocol
import Testing

/// Inputs the engineio-handshake fuzz target found (Fuzz/engineio-handshake).
@Suite struct EngineHandshakeFuzzFindingTests {
    /// `make fuzz-smoke` found a maxPayload past 2^53: a JSON number is a double, so it is
    /// accepted as the nearest integer, and the value the serializer writes back reads as an
    /// integer within one part in 2^52 of it (not always the same one).
    @Test func aMaxPayloadPastTwoToTheFiftyThirdIsAcceptedAndSurvivesARoundTripClosely() throws {
        let text = #"{"sid":"a","pingInterval":0e308,"pingTimeout":-0,"maxPayload":9220000001346126261.53}"#
        let handshake = try EngineHandshake(jsonText: text)
        let first = try #require(handshake.maxPayload)
        #expect(abs(Double(first) - 9.220000001346126e18) <= 9.22e18 / Double(1 << 52))
        let again = try EngineHandshake(jsonText: try JSONParser(maximumDepth: 8).parse(text).serializedString())
        let second = try #require(again.maxPayload)
        #expect(abs(Double(second) - Double(first)) <= Double(first) / Double(1 << 52))
        #expect(again.sid == handshake.sid && again.pingInterval == handshake.pingInterval)
    }
}
