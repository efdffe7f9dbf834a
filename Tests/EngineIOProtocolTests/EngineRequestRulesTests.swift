import RealtimeTime
import Testing

@testable import EngineIOProtocol

/// The Engine.IO rules an engine's drivers follow around requests, without I/O: the query,
/// the server's error object, and how long a polling `GET` may wait.
@Suite struct EngineRequestRulesTests {
    // MARK: Query

    @Test func pollingAndWebSocketQueriesAsUpstreamBuildsThem() {
        #expect(EngineQuery.base(transport: .polling, version: .v4, parameters: []) == "transport=polling&b64=1&EIO=4")
        #expect(EngineQuery.base(transport: .webSocket, version: .v4, parameters: []) == "transport=websocket&EIO=4")
        #expect(EngineQuery.base(transport: .polling, version: .v3, parameters: []) == "transport=polling&b64=1&EIO=3")
        #expect(
            EngineQuery.base(transport: .webSocket, version: .v4, parameters: [("room", "a+b"), ("é", "x y")])
                == "transport=websocket&room=a%2Bb&%C3%A9=x%20y&EIO=4")
    }

    @Test func sessionPrefixAddsTheSidAndPollingsCounterLast() {
        let polling = EngineQuery.base(transport: .polling, version: .v4, parameters: [("k", "v")])
        #expect(EngineQuery.sessionPrefix(base: polling, transport: .polling, sid: nil) == polling + "&t=")
        #expect(EngineQuery.sessionPrefix(base: polling, transport: .polling, sid: "") == polling + "&t=")
        #expect(EngineQuery.sessionPrefix(base: polling, transport: .polling, sid: "a/b") == polling + "&sid=a%2Fb&t=")
        let webSocket = EngineQuery.base(transport: .webSocket, version: .v4, parameters: [])
        #expect(EngineQuery.sessionPrefix(base: webSocket, transport: .webSocket, sid: "s1") == webSocket + "&sid=s1")
        #expect(EngineQuery.appending("sid", "s", to: nil) == "sid=s")
        #expect(EngineQuery.appending("sid", "s", to: "") == "sid=s")
    }

    @Test func encodingKeepsOnlyUnreservedBytes() {
        #expect(EngineQuery.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(EngineQuery.encode("+/?:@!$'()*,;=&#%") == "%2B%2F%3F%3A%40%21%24%27%28%29%2A%2C%3B%3D%26%23%25")
        #expect(EngineQuery.encode("a\u{0}\t\u{7F}<>\\`b") == "a%00%09%7F%3C%3E%5C%60b")
        #expect(EngineQuery.encode("ü€") == "%C3%BC%E2%82%AC")
        #expect(EngineQuery.encode("") == "")
    }

    // MARK: Server error object

    @Test(arguments: [
        (#"{"code":1,"message":"Session ID unknown"}"#, EngineServerError.message("Session ID unknown")),
        (#"{"code":3,"message":"Bad request"}"#, .message("Bad request")),
        (#"{"code":1}"#, .withoutMessage),
        (#"{"message":5}"#, .withoutMessage),
        (#"{}"#, .withoutMessage),
    ])
    func errorObjects(text: String, expected: EngineServerError) {
        #expect(EngineServerError(text: text) == expected)
        #expect(EngineServerError(body: Array(text.utf8)) == expected)
    }

    @Test(arguments: ["4hello", "", "0{\"sid\":\"a\"}", "{not json", "[1]", "12:42[\"a\"]", " {\"message\":\"x\"}"])
    func packetsAndOtherTextAreNoErrorObject(text: String) {
        #expect(EngineServerError(text: text) == nil)
        #expect(EngineServerError(body: Array(text.utf8)) == nil)
    }

    @Test func aBodyThatIsNotUTF8IsNoErrorObject() {
        #expect(EngineServerError(body: [UInt8(ascii: "{"), 0xFF, UInt8(ascii: "}")]) == nil)
    }

    // MARK: Poll timeout

    @Test func pollingGETTimeoutFollowsTheHandshake() {
        var machine = EngineClientStateMachine(configuration: .init(forcePolling: true))
        #expect(machine.pollingGETTimeout == .seconds(20))
        _ = machine.start()
        #expect(machine.pollingGETTimeout == .seconds(20))
        let open = #"0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000}"#
        _ = machine.pollingGETCompleted(body: Array(open.utf8), now: .now)
        // The server holds a GET up to pingInterval; the client allows pingTimeout and 5 s more.
        #expect(machine.pollingGETTimeout == .seconds(50))
    }
}
