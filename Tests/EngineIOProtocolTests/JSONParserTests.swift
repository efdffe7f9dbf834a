import Testing

@testable import EngineIOProtocol

@Suite struct JSONParserTests {
    // MARK: Accepted input

    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(parsing: #" {"s":"x","i":-12,"d":1.5,"t":true,"f":false,"n":null,"a":[1,[]],"o":{}} "#)
        let expected: JSONValue = [
            "s": "x", "i": -12, "d": 1.5, "t": true, "f": false, "n": nil, "a": [1, []], "o": [:],
        ]
        #expect(value == expected)
    }

    @Test func keepsObjectMemberOrder() throws {
        let value = try JSONValue(parsing: #"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.serializedString() == #"{"z":1,"a":2,"m":3}"#)
    }

    @Test func booleansNeverBecomeNumbers() throws {
        #expect(try JSONValue(parsing: "true") == .bool(true))
        #expect(try JSONValue(parsing: "[1,true,0,false]") == .array([.int(1), .bool(true), .int(0), .bool(false)]))
        #expect(try JSONValue(parsing: "1").boolValue == nil)
        #expect(try JSONValue(parsing: "true").intValue == nil)
    }

    @Test(arguments: [
        ("0", JSONValue.int(0)),
        ("-0", .int(0)),
        ("42", .int(42)),
        ("-42", .int(-42)),
        ("9223372036854775807", .int(Int.max)),
        ("-9223372036854775808", .int(Int.min)),
        ("9223372036854775808", .double(9223372036854775808.0)),
        ("-9223372036854775809", .double(-9223372036854775809.0)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("1.0", .double(1.0)),
        ("1e2", .double(100)),
        ("1E+2", .double(100)),
        ("25e-1", .double(2.5)),
        ("-0.5", .double(-0.5)),
        ("0.1", .double(0.1)),
        ("5e-324", .double(.leastNonzeroMagnitude)),
        ("1.7976931348623157e308", .double(1.7976931348623157e308)),
    ])
    func parsesNumbers(text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test func parsesStringEscapes() throws {
        let value = try JSONValue(parsing: #""a\"b\\c\/d\be\ff\ng\rh\ti\u0041\u00e9\u20ac""#)
        #expect(value == .string("a\"b\\c/d\u{08}e\u{0C}f\ng\rh\ti" + "A\u{E9}\u{20AC}"))
    }

    @Test func combinesSurrogatePairs() throws {
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue(parsing: #""x\uD834\uDD1Ey""#) == .string("x𝄞y"))
    }

    @Test func acceptsRawUTF8() throws {
        #expect(try JSONValue(parsing: "\"héllo € 😀 日本\"") == .string("héllo € 😀 日本"))
        #expect(try JSONValue(parsing: "[\"é\\n€\"]") == .array(["é\n€"]))
    }

    @Test func keepsDuplicateKeysAndReadsTheFirst() throws {
        let value = try JSONValue(parsing: #"{"a":1,"a":2}"#)
        #expect(value.objectValue?.count == 2)
        #expect(value["a"] == .int(1))
    }

    @Test func acceptsScalarsAtTopLevel() throws {
        #expect(try JSONValue(parsing: "null") == .null)
        #expect(try JSONValue(parsing: "\"x\"") == .string("x"))
        #expect(try JSONValue(parsing: " \t\r\n12\n") == .int(12))
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let parser = JSONParser(maximumDepth: 10)
        let text = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        _ = try parser.parse(text)
    }

    // MARK: Rejected input

    static let malformed: [(String, JSONParseError.Kind)] = [
        ("", .unexpectedEnd),
        ("   ", .unexpectedEnd),
        ("[", .unexpectedEnd),
        ("[1,", .unexpectedEnd),
        ("{\"a\"", .unexpectedEnd),
        ("{\"a\":", .unexpectedEnd),
        ("\"abc", .unexpectedEnd),
        ("\"abc\\", .unexpectedEnd),
        ("\"\\u12", .unexpectedEnd),
        ("tru", .unexpectedEnd),
        ("[1,]", .unexpectedByte(UInt8(ascii: "]"))),
        ("{\"a\":1,}", .unexpectedByte(UInt8(ascii: "}"))),
        ("{a:1}", .unexpectedByte(UInt8(ascii: "a"))),
        ("{\"a\" 1}", .unexpectedByte(UInt8(ascii: "1"))),
        ("[1 2]", .unexpectedByte(UInt8(ascii: "2"))),
        ("'x'", .unexpectedByte(UInt8(ascii: "'"))),
        ("nul", .unexpectedEnd),
        ("nulL", .unexpectedByte(UInt8(ascii: "L"))),
        ("True", .unexpectedByte(UInt8(ascii: "T"))),
        ("NaN", .unexpectedByte(UInt8(ascii: "N"))),
        ("Infinity", .unexpectedByte(UInt8(ascii: "I"))),
        ("+1", .unexpectedByte(UInt8(ascii: "+"))),
        (".5", .unexpectedByte(UInt8(ascii: "."))),
        ("01", .invalidNumber),
        ("-", .unexpectedEnd),
        ("-x", .invalidNumber),
        ("1.", .unexpectedEnd),
        ("1.x", .invalidNumber),
        ("1e", .unexpectedEnd),
        ("1e+", .unexpectedEnd),
        ("1ex", .invalidNumber),
        ("1 2", .trailingData),
        ("{} {}", .trailingData),
        ("\"a\\x\"", .invalidEscape),
        ("\"a\\U0041\"", .invalidEscape),
        ("\"\\u00G0\"", .invalidUnicodeEscape),
        ("\"\\ud800\"", .loneSurrogate),
        ("\"\\udc00\"", .loneSurrogate),
        ("\"\\ud800x\"", .loneSurrogate),
        ("\"\\ud800\\u0041\"", .loneSurrogate),
        ("\"\\ud800\\n\"", .loneSurrogate),
        ("\"a\u{01}b\"", .controlCharacterInString),
        ("\"a\nb\"", .controlCharacterInString),
        ("\"a\\n\tb\"", .controlCharacterInString),
        ("/* c */ 1", .unexpectedByte(UInt8(ascii: "/"))),
    ]

    @Test(arguments: Self.malformed)
    func rejectsMalformedText(text: String, kind: JSONParseError.Kind) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.kind == kind, "\(text.debugDescription)")
        }
    }

    @Test(arguments: [
        [0xFF] as [UInt8],  // never valid
        [0xC0, 0xAF],  // overlong "/"
        [0xE0, 0x80, 0xAF],  // overlong
        [0xED, 0xA0, 0x80],  // encoded surrogate U+D800
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0x80],  // stray continuation
        [0xE2, 0x82],  // truncated euro sign
        [0xC3, 0x28],  // bad continuation
    ])
    func rejectsInvalidUTF8InStrings(bad: [UInt8]) {
        for bytes in [[0x22] + bad + [0x22], [0x22, 0x5C, 0x6E] + bad + [0x22]] {
            #expect(throws: JSONParseError(.invalidUTF8, at: bytes.firstIndex(of: bad[0]) ?? -1)) {
                try JSONParser().parse(bytes)
            }
        }
    }

    @Test func rejectsHostileNestingWithoutExhaustingTheStack() {
        for opener in ["[", "{\"a\":"] {
            let text = String(repeating: opener, count: 200_000)
            #expect(throws: JSONParseError(.depthLimitExceeded(limit: 128), at: 128 * opener.utf8.count)) {
                try JSONValue(parsing: text)
            }
        }
        #expect(throws: JSONParseError.self) {
            try JSONParser(maximumDepth: 10).parse(String(repeating: "[", count: 11) + String(repeating: "]", count: 11))
        }
    }

    @Test func everyTruncationOfADocumentIsRejected() throws {
        let text = #"{"a":[1,-2.5e3,{"b":"c\u00e9\"d"}],"t":true,"n":null,"s":"😀"}"#
        let bytes = Array(text.utf8)
        _ = try JSONParser().parse(bytes)
        for length in 0..<bytes.count {
            #expect(throws: JSONParseError.self, "prefix \(length)") {
                try JSONParser().parse(bytes[0..<length])
            }
        }
    }

    @Test func byteAfterEveryPrefixIsCheckedNeverTraps() {
        // Flip each byte of a valid document to a few hostile values: must throw or parse, never trap.
        let bytes = Array(#"{"k":[1,"v",true,null,{"x":-0.5e-3}]}"#.utf8)
        for index in bytes.indices {
            for replacement: UInt8 in [0x00, 0x22, 0x5C, 0x7B, 0x5B, 0xFF, 0x2D] {
                var mutated = bytes
                mutated[index] = replacement
                _ = try? JSONParser().parse(mutated)
            }
        }
    }
}
