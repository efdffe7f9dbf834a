#if os(macOS) || os(Linux)
import CommandLineSupport
import EngineIOProtocol
import Foundation
import TestSupport
import Testing

/// The built `sse` binary against the raw event-stream server (`Tests/Servers/sse_raw_server.py`):
/// stdout lines, stderr progress and exit statuses.
@Suite(.serialized, .needsTool("sse"), TestTimeLimit.minutes(3)) struct SSEEndToEndTests {
    @Test func printsEachEventsDataAndExitsZeroWhenTheStreamEnds() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/events?count=3"])
        #expect(try await sse.waitForExit() == 0)
        #expect(sse.outputLines == ["event 1", "event 2", "event 3"])
        #expect(sse.errorText == "sse: connecting to http://127.0.0.1:\(server.port)/events?count=3\nsse: connected\n")
    }

    @Test func jsonLinesCarryTypeDataAndID() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["--json", "127.0.0.1:\(server.port)/events?count=2", "--silent"])
        #expect(try await sse.waitForExit() == 0)
        #expect(sse.outputLines == [#"{"type":"tick","data":"event 1","id":"1"}"#, #"{"type":"tick","data":"event 2","id":"2"}"#])
        #expect(sse.errorText.isEmpty)
    }

    @Test func anHTTPErrorExitsTwentyTwoWithTheStatusOnStderr() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/status/404"])
        #expect(try await sse.waitForExit() == 22)
        #expect(sse.errorText.contains("sse: HTTP 404: server says 404\n"))
        #expect(sse.outputLines.isEmpty)
    }

    @Test func aBodyThatIsNotAnEventStreamExitsTwentyTwo() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/wrong-type"])
        #expect(try await sse.waitForExit() == 22)
        #expect(sse.errorText.contains("sse: HTTP 200 but the response is not text/event-stream"))
    }

    @Test func maxEventsStopsAnEndlessStream() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/forever", "-n", "3"])
        #expect(try await sse.waitForExit() == 0)
        #expect(sse.outputLines == ["tick 1", "tick 2", "tick 3"])
        _ = try await server.waitForLine { $0 == "DISCONNECTED /forever" }
    }

    @Test func timeoutExitsTwentyEight() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/forever", "--timeout", "0.5"])
        #expect(try await sse.waitForExit() == 28)
        #expect(sse.errorText.hasSuffix("sse: timed out after 0.5 s\n"))
        #expect(sse.outputLines.first == "tick 1")
    }

    @Test func anIdleStreamFailsWithStatusTwo() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/stall", "--idle-timeout", "0.5"])
        #expect(try await sse.waitForExit() == 2)
        #expect(sse.outputLines == ["before the stall"])
        #expect(sse.errorText.contains("sse: timed out: nothing received for 0.5 s"))
    }

    @Test func methodHeadersBodyAndLastEventIDAreSent() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess(
            "sse",
            [
                "http://127.0.0.1:\(server.port)/echo", "--json", "-X", "PUT",
                "-H", "X-Test: yes", "-d", "hello", "--last-event-id", "7",
            ])
        #expect(try await sse.waitForExit() == 0)
        let line = try #require(sse.outputLines.first)
        guard case .string(let data)? = try JSONValue(parsing: line)["data"] else {
            Issue.record("no data in \(line)")
            return
        }
        let request = try JSONValue(parsing: data)
        #expect(request["method"] == "PUT")
        #expect(request["body"] == "hello")
        let headers = try #require(request["headers"])
        #expect(headers["x-test"] == "yes")
        #expect(headers["last-event-id"] == "7")
        #expect(headers["accept"] == "text/event-stream")
        _ = try await server.waitForLine { $0 == "REQUEST PUT /echo last-event-id=7 body=hello" }
    }

    @Test func reconnectFollowsTheServerAcrossConnections() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/reconnect", "--reconnect"])
        // 1st connection: `first`; 2nd (Last-Event-ID 1): `second`; 3rd: 204, the end.
        #expect(try await sse.waitForExit() == 0)
        #expect(sse.outputLines == ["first", "second"])
        #expect(sse.errorText.contains("sse: reconnected\n"))
        _ = try await server.waitForLine { $0.hasPrefix("REQUEST GET /reconnect last-event-id=2") }
    }

    @Test func withoutReconnectOneConnectionIsMade() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(server.port)/reconnect"])
        #expect(try await sse.waitForExit() == 0)
        #expect(sse.outputLines == ["first"])
        #expect(server.lines.filter { $0.hasPrefix("REQUEST") }.count == 1)
    }

    @Test func nothingListeningExitsTwo() async throws {
        let server = try await TestServer.start("sse_raw_server.py")
        let port = server.port
        server.stop()
        let sse = try ToolProcess("sse", ["http://127.0.0.1:\(port)/events"])
        #expect(try await sse.waitForExit() == 2)
        #expect(sse.errorText.contains("sse: connection failed: "))
    }

    @Test func usageErrorsAndHelp() async throws {
        let bad = try ToolProcess("sse", ["http://h", "-n", "none"])
        #expect(try await bad.waitForExit() == 1)
        #expect(bad.errorText.hasPrefix("Error: The value 'none' is invalid for '-n': expected an integer >= 1\n"))

        let help = try ToolProcess("sse", ["-h"])
        #expect(try await help.waitForExit() == 0)
        #expect(help.outputLines.contains("USAGE: sse [<options>] <url>"))
    }
}
#endif
