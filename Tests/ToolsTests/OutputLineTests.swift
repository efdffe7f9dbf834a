import CommandLineSupport
import EngineIOProtocol
import Testing

/// What the tools print on stdout, and `sio`'s interactive input lines.
@Suite struct OutputLineTests {
    @Test func socketEventAndAckLines() {
        #expect(
            OutputLine.socketEvent("message:new", arguments: [["id": 1], "hi"])
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
                == EmitLine(event: "message:send", arguments: ["hi", 2, ["to": ["all"]]]))
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

    @Test func valuesMayFollowAStringAnArrayOrAnObjectDirectly() throws {
        #expect(try EmitLine.parse(#"event {"a":1}[4]"x""b""#) == EmitLine(event: "event", arguments: [["a": 1], [4], "x", "b"]))
        #expect(try EmitLine.parse(#""\u0041bc"1"#) == EmitLine(event: "Abc", arguments: [1]))
    }

    /// The offset is in the line's UTF-8 bytes after its leading blanks; the message is what
    /// `sio` prints after `line N: `.
    @Test(arguments: [
        ("event 1 2w", "invalid JSON at offset 9: unexpected character 'w'"),
        ("event hello", "invalid JSON at offset 6: unexpected character 'h'"),
        (#""unterminated"#, "invalid JSON at offset 13: unexpected end of input"),
        ("broken line {", "invalid JSON at offset 7: unexpected character 'l'"),
        ("event 1,2", "invalid JSON at offset 7: unexpected character ','"),
        (#"event 1"a""#, #"invalid JSON at offset 7: unexpected character '"'"#),
        ("event 12abc", "invalid JSON at offset 8: unexpected character 'a'"),
        ("event null1", "invalid JSON at offset 10: unexpected character '1'"),
        (#""a"b"#, "invalid JSON at offset 3: unexpected character 'b'"),
        (#"  é [1,]"#, "invalid JSON at offset 6: unexpected character ']'"),
        (#""\ud800" 1"#, "invalid JSON at offset 1: unpaired surrogate"),
    ])
    func anArgumentThatIsNotJSONIsAnErrorAtItsOffset(line: String, message: String) {
        #expect {
            try EmitLine.parse(line)
        } throws: { error in
            (error as? JSONParseError)?.commandLineDescription == message
        }
    }

    @Test func argumentsMayNestAsDeepAsOnTheCommandLine() throws {
        let fine = "e " + String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(try EmitLine.parse(fine)?.arguments.count == 1)
        let deep = "e " + String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        #expect(throws: JSONParseError(.depthLimitExceeded(limit: 256), at: 258)) { try EmitLine.parse(deep) }
    }
}
