import CommandLineSupport
import Testing

/// What the tools print on stdout, and `sio`'s interactive input lines.
@Suite struct OutputLineTests {
    @Test func socketEventAndAckLines() {
        #expect(
            OutputLine.socketEvent("message:new", arguments: [.object([JSON.Member("id", .int(1))]), .string("hi")])
                == #"{"event":"message:new","args":[{"id":1},"hi"]}"# + "\n")
        #expect(OutputLine.socketEvent("ping", arguments: []) == #"{"event":"ping","args":[]}"# + "\n")
        #expect(OutputLine.socketAck("send", items: [.bool(true)]) == #"{"event":"send","ack":[true]}"# + "\n")
    }

    @Test func serverSentEventAsPlainText() {
        #expect(OutputLine.serverSentEvent(type: "tick", data: "line 1\nline 2", id: "3", format: .plain) == "line 1\nline 2\n")
        #expect(OutputLine.serverSentEvent(type: nil, data: nil, id: nil, format: .plain) == "\n")
    }

    @Test func serverSentEventAsJSON() {
        #expect(
            OutputLine.serverSentEvent(type: "tick", data: "a \"b\"\nc", id: "3", format: .json)
                == #"{"type":"tick","data":"a \"b\"\nc","id":"3"}"# + "\n")
        #expect(
            OutputLine.serverSentEvent(type: nil, data: "x", id: nil, format: .json)
                == #"{"type":"message","data":"x","id":null}"# + "\n")
    }
}

@Suite struct EmitLineTests {
    @Test func readsAnEventNameAndJSONArguments() throws {
        #expect(
            try EmitLine.parse(#"message:send "hi" 2 {"to":["all"]}"#)
                == EmitLine(event: "message:send", arguments: [.string("hi"), .int(2), .object([JSON.Member("to", .array([.string("all")]))])]))
        #expect(try EmitLine.parse("  ping  ") == EmitLine(event: "ping", arguments: []))
        #expect(try EmitLine.parse("\tping\t1") == EmitLine(event: "ping", arguments: [.int(1)]))
    }

    @Test func aQuotedEventNameMayHoldSpaces() throws {
        #expect(try EmitLine.parse(#""two words" null"#) == EmitLine(event: "two words", arguments: [.null]))
        #expect(try EmitLine.parse(#""é"[]"#) == EmitLine(event: "é", arguments: [.array([])]))
    }

    @Test func blankLinesAndCommentsAreSkipped() throws {
        #expect(try EmitLine.parse("") == nil)
        #expect(try EmitLine.parse("   ") == nil)
        #expect(try EmitLine.parse("# a comment") == nil)
    }

    @Test func anArgumentThatIsNotJSONIsAnErrorAtItsOffset() {
        #expect(throws: JSONSyntaxError(offset: 9, reason: "unexpected character 'w' after a value")) {
            try EmitLine.parse("event 1 2w")
        }
        #expect(throws: JSONSyntaxError.self) { try EmitLine.parse("event hello") }
        #expect(throws: JSONSyntaxError.self) { try EmitLine.parse(#""unterminated"#) }
    }
}
