import CommandLineSupport
import EngineIOProtocol
import Foundation
import Testing

/// `sio` and `sse` command lines read into their options, with no I/O.
@Suite struct SIOOptionsTests {
    func options(_ arguments: [String]) throws(UsageError) -> SIOOptions {
        guard case .run(let options) = try SIOOptions.parse(arguments) else { throw .unexpectedArgument("help") }
        return options
    }

    @Test func defaults() throws {
        let options = try self.options(["localhost:3000"])
        #expect(options.serverURL.absoluteString == "http://localhost:3000")
        #expect(options.namespace == "/")
        #expect(options.path == nil)
        #expect(options.transport == .auto)
        #expect(options.reconnects)
        #expect(options.ackTimeout == 10)
        #expect(options.mode(stdinIsTerminal: true) == .listen)
        #expect(options.mode(stdinIsTerminal: false) == .interactive)
    }

    @Test func everyOption() throws {
        let options = try self.options([
            "wss://example.com:8443/chat?room=1&token=a%20b", "--path", "/io/", "--transport", "WebSocket",
            "--auth", #"{"token":"abc"}"#, "-H", "X-One: 1", "--header", "Cookie:  a=b ", "-k", "--cacert", "ca.pem",
            "--version2", "-e", "message:send", "-d", #""hello""#, "--data", "-2", "--ack-timeout", "2.5",
            "--connect-timeout", "3", "--no-reconnect", "-s",
        ])
        #expect(options.serverURL.absoluteString == "https://example.com:8443")
        #expect(options.namespace == "/chat")
        #expect(options.connectParameters == [HeaderField(name: "room", value: "1"), HeaderField(name: "token", value: "a b")])
        #expect(options.path == "/io/")
        #expect(options.transport == .websocket)
        #expect(options.auth == ["token": "abc"])
        #expect(options.headers == [HeaderField(name: "X-One", value: "1"), HeaderField(name: "Cookie", value: "a=b")])
        #expect(options.insecure)
        #expect(options.caCertificatePath == "ca.pem")
        #expect(options.usesVersionTwo)
        #expect(options.ackTimeout == 2.5)
        #expect(options.connectTimeout == 3)
        #expect(!options.reconnects)
        #expect(options.silent)
        #expect(options.mode(stdinIsTerminal: false) == .emit(event: "message:send", arguments: [.string("hello"), .int(-2)], waitsForAck: true))
    }

    @Test func namespaceOptionWinsOverTheURLPath() throws {
        #expect(try self.options(["http://h/admin/", "--namespace", "other"]).namespace == "/other")
        #expect(try self.options(["http://h/admin/"]).namespace == "/admin")
        #expect(try self.options(["ws://h/"]).serverURL.absoluteString == "http://h")
    }

    @Test func modes() throws {
        #expect(try self.options(["h", "-i"]).mode(stdinIsTerminal: true) == .interactive)
        #expect(try self.options(["h", "-l"]).mode(stdinIsTerminal: false) == .listen)
        #expect(
            try self.options(["h", "-e", "x", "--no-ack"]).mode(stdinIsTerminal: false)
                == .emit(event: "x", arguments: [], waitsForAck: false))
    }

    @Test(arguments: [
        (["h", "--data", "1"], UsageError.requires(option: "--data", requirement: "--emit")),
        (["h", "--no-ack"], UsageError.requires(option: "--no-ack", requirement: "--emit")),
        (["h", "-e", "x", "-i"], UsageError.conflictingOptions("-e", "-i")),
        (["h", "-i", "--listen"], UsageError.conflictingOptions("-i", "--listen")),
        (
            ["h", "--transport", "carrier-pigeon"],
            UsageError.invalidValue(option: "--transport", value: "carrier-pigeon", reason: "expected polling, websocket or auto")
        ),
        (["h", "--auth", "[1]"], UsageError.invalidValue(option: "--auth", value: "[1]", reason: "expected a JSON object")),
        (["h", "--ack-timeout", "0"], UsageError.invalidValue(option: "--ack-timeout", value: "0", reason: "expected a number of seconds > 0")),
        (["h", "-H", "no colon"], UsageError.invalidValue(option: "-H", value: "no colon", reason: "expected 'Name: value'")),
        (["ftp://h"], UsageError.invalidValue(option: "<url>", value: "ftp://h", reason: "expected an http, https, ws or wss URL")),
    ])
    func usageErrors(arguments: [String], expected: UsageError) {
        #expect(throws: expected) { try SIOOptions.parse(arguments) }
    }

    @Test func dataThatIsNotJSONSaysHowToQuoteAString() {
        #expect {
            try SIOOptions.parse(["h", "-e", "x", "-d", "hello"])
        } throws: { error in
            guard case .invalidValue(let option, let value, let reason)? = error as? UsageError else { return false }
            return option == "-d" && value == "hello" && reason.contains(#"quote a string: '"text"'"#)
        }
    }
}

@Suite struct SSEOptionsTests {
    func options(_ arguments: [String]) throws(UsageError) -> SSEOptions {
        guard case .run(let options) = try SSEOptions.parse(arguments) else { throw .unexpectedArgument("help") }
        return options
    }

    @Test func defaultsFollowCurlAndEventSource() throws {
        let options = try self.options(["localhost:8000/events"])
        #expect(options.url.absoluteString == "http://localhost:8000/events")
        #expect(options.effectiveMethod == "GET")
        #expect(options.reconnects == nil)
        #expect(options.format == .plain)
        #expect(options.maximumEvents == nil)
        #expect(options.timeout == nil)
    }

    @Test func everyOption() throws {
        let options = try self.options([
            "https://h/stream", "--json", "-H", "Authorization: Bearer x", "-d", "@body.json", "--last-event-id", "42",
            "--reconnect", "-n", "5", "-m", "1.5", "--idle-timeout", "9", "-s",
        ])
        #expect(options.format == .json)
        #expect(options.headers == [HeaderField(name: "Authorization", value: "Bearer x")])
        #expect(options.body == .file("body.json"))
        #expect(options.effectiveMethod == "POST")
        #expect(options.lastEventID == "42")
        #expect(options.reconnects == true)
        #expect(options.maximumEvents == 5)
        #expect(options.timeout == 1.5)
        #expect(options.idleTimeout == 9)
        #expect(options.silent)
        #expect(try self.options(["h", "-XPUT", "-d", "x", "--no-reconnect"]).effectiveMethod == "PUT")
        #expect(try self.options(["h", "-d", "x"]).body == .text("x"))
        #expect(try self.options(["h", "--no-reconnect"]).reconnects == false)
    }

    @Test(arguments: [
        (["h", "--reconnect", "--no-reconnect"], UsageError.conflictingOptions("--reconnect", "--no-reconnect")),
        (["h", "-n", "0"], UsageError.invalidValue(option: "-n", value: "0", reason: "expected an integer >= 1")),
        (["h", "--timeout", "soon"], UsageError.invalidValue(option: "--timeout", value: "soon", reason: "expected a number of seconds > 0")),
        (["ws://h"], UsageError.invalidValue(option: "<url>", value: "ws://h", reason: "expected an http or https URL")),
        (["h", "-X", "GET /"], UsageError.invalidValue(option: "-X", value: "GET /", reason: "expected a method name such as GET or POST")),
        (["h", "-H", "Bad Name: 1"], UsageError.invalidValue(option: "-H", value: "Bad Name: 1", reason: "the header name must be an HTTP token")),
    ])
    func usageErrors(arguments: [String], expected: UsageError) {
        #expect(throws: expected) { try SSEOptions.parse(arguments) }
    }
}
