import Testing

@testable import EngineIOProtocol

/// ``JSONParser/parseSequence(_:)``: whitespace-separated values in one text (a command line's
/// `event [json ...]`), and ``JSONParseError/reason``, the words the tools print.
@Suite struct JSONParserSequenceTests {
    // MARK: Accepted input

    static let sequences: [(String, [JSONValue])] = [
        ("", []),
        (" \t\r\n ", []),
        ("1", [1]),
        (" 1 \"two\"  {\"three\":3}\t[4] ", [1, "two", ["three": 3], [4]]),
        (#""a""b""#, ["a", "b"]),
        (#"{"a":1}[4]"x"{}"#, [["a": 1], [4], "x", [:]]),
        ("true false null -0.5 1e3", [true, false, nil, -0.5, 1000.0]),
        ("[1, 2] {\"k\" : [ ] }", [[1, 2], ["k": []]]),
        (#""é😀" "\u0041""#, ["é😀", "A"]),
    ]

    @Test(arguments: Self.sequences)
    func readsValuesSeparatedByWhitespace(text: String, expected: [JSONValue]) throws {
        #expect(try JSONParser().parseSequence(text[...]) == expected)
    }

    @Test func eachValueIsReadAsParseReadsIt() throws {
        let texts = [#"{"z":1,"a":[1.5,-2,"\n"],"a":null}"#, "9223372036854775808", #""\ud83d\ude00""#, "-0"]
        let values = try JSONParser().parseSequence(texts.joined(separator: " ")[...])
        #expect(values == (try texts.map { try JSONValue(parsing: $0) }))
    }

    @Test func offsetsAreInTheSubstringNotItsBase() {
        let line = "event 1 2w"
        let arguments = line[line.index(line.startIndex, offsetBy: 5)...]
        #expect(throws: JSONParseError(.unexpectedByte(UInt8(ascii: "w")), at: 4)) {
            try JSONParser().parseSequence(arguments)
        }
    }

    // MARK: Rejected input

    static let malformed: [(String, JSONParseError)] = [
        // A number or a literal must be followed by whitespace or the end.
        ("12abc", JSONParseError(.unexpectedByte(UInt8(ascii: "a")), at: 2)),
        ("1-2", JSONParseError(.unexpectedByte(UInt8(ascii: "-")), at: 1)),
        ("1.5.5", JSONParseError(.unexpectedByte(UInt8(ascii: ".")), at: 3)),
        (#"1"a""#, JSONParseError(.unexpectedByte(UInt8(ascii: "\"")), at: 1)),
        ("1[2]", JSONParseError(.unexpectedByte(UInt8(ascii: "[")), at: 1)),
        ("truex", JSONParseError(.unexpectedByte(UInt8(ascii: "x")), at: 4)),
        ("null1", JSONParseError(.unexpectedByte(UInt8(ascii: "1")), at: 4)),
        ("true{}", JSONParseError(.unexpectedByte(UInt8(ascii: "{")), at: 4)),
        // Commas do not separate values; anything that does not start a value is an error.
        ("1,2", JSONParseError(.unexpectedByte(UInt8(ascii: ",")), at: 1)),
        (#""a",1"#, JSONParseError(.unexpectedByte(UInt8(ascii: ",")), at: 3)),
        ("1 hello", JSONParseError(.unexpectedByte(UInt8(ascii: "h")), at: 2)),
        ("1 two", JSONParseError(.unexpectedByte(UInt8(ascii: "w")), at: 3)),
        ("1 tru", JSONParseError(.unexpectedEnd, at: 5)),
        // Each value's own errors, at their offsets in the whole text.
        ("1 [1,]", JSONParseError(.unexpectedByte(UInt8(ascii: "]")), at: 5)),
        (#"1 "open"#, JSONParseError(.unexpectedEnd, at: 7)),
        (#"[] "\ud800""#, JSONParseError(.loneSurrogate, at: 4)),
        ("0 01", JSONParseError(.invalidNumber, at: 3)),
    ]

    @Test(arguments: Self.malformed)
    func rejectsWhatIsNotASequenceOfValues(text: String, expected: JSONParseError) {
        #expect(throws: expected, "\(text.debugDescription)") { try JSONParser().parseSequence(text[...]) }
    }

    @Test func eachValueHasTheDepthLimit() throws {
        let parser = JSONParser(maximumDepth: 3)
        let fine = "[[[]]] [[[]]]"
        #expect(try parser.parseSequence(fine[...]).count == 2)
        let deep = "[[[]]] [[[[]]]]"
        #expect(throws: JSONParseError(.depthLimitExceeded(limit: 3), at: 10)) { try parser.parseSequence(deep[...]) }
    }

    @Test func bytesAndTextGiveTheSameResult() throws {
        let text = #" {"a":[1,"b"]} 2.5 "c" "#
        let bytes = Array(text.utf8)
        let fromBytes = try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            try JSONParser().parseSequence(buffer)
        }
        #expect(fromBytes == (try JSONParser().parseSequence(text[...])))
    }

    // MARK: Reasons

    @Test(arguments: [
        (JSONParseError.Kind.unexpectedEnd, "unexpected end of input"),
        (.unexpectedByte(UInt8(ascii: "l")), "unexpected character 'l'"),
        (.unexpectedByte(0x01), #"unexpected character '\x1'"#),
        (.unexpectedByte(0xFF), #"unexpected character '\xff'"#),
        (.invalidNumber, "invalid number"),
        (.invalidEscape, "invalid escape"),
        (.invalidUnicodeEscape, "expected 4 hex digits"),
        (.loneSurrogate, "unpaired surrogate"),
        (.controlCharacterInString, "control character in a string (escape it)"),
        (.invalidUTF8, "invalid UTF-8"),
        (.depthLimitExceeded(limit: 256), "nesting deeper than 256 levels"),
        (.trailingData, "unexpected text after the value"),
    ])
    func everyKindHasAReason(kind: JSONParseError.Kind, reason: String) {
        #expect(JSONParseError(kind, at: 3).reason == reason)
    }
}
