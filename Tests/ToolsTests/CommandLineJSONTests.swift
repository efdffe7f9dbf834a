import CommandLineSupport
import EngineIOProtocol
import Testing

/// How the tools read and print JSON: EngineIOProtocol's parser (tested in
/// EngineIOProtocolTests) with the tools' nesting limit, their `Double` form and their error words.
@Suite struct CommandLineJSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(
            commandLineArgument:
                #" {"s": "a\"b\\c\n\u00e9\ud83d\ude00", "i": -12, "d": 1.5e3, "t": true, "f": false, "n": null, "a": [1, [], {}]} "#)
        let expected: JSONValue = [
            "s": "a\"b\\c\né😀", "i": -12, "d": 1500.0, "t": true, "f": false, "n": nil, "a": [1, [], [:]],
        ]
        #expect(value == expected)
        #expect(value.objectValue?.keys == ["s", "i", "d", "t", "f", "n", "a"])
    }

    @Test func anIntegerTooLargeForIntIsADouble() throws {
        #expect(try JSONValue(commandLineArgument: "9223372036854775807") == .int(Int.max))
        #expect(try JSONValue(commandLineArgument: "9223372036854775808") == .double(9_223_372_036_854_775_808))
    }

    /// The words and offsets the tools print for an argument that is not JSON.
    @Test(arguments: [
        ("", "invalid JSON at offset 0: unexpected end of input"),
        ("hello", "invalid JSON at offset 0: unexpected character 'h'"),
        ("tru", "invalid JSON at offset 3: unexpected end of input"),
        ("truex", "invalid JSON at offset 4: unexpected text after the value"),
        ("01", "invalid JSON at offset 1: invalid number"),
        ("1.", "invalid JSON at offset 2: unexpected end of input"),
        ("[1,]", "invalid JSON at offset 3: unexpected character ']'"),
        (#"{"a" 1}"#, "invalid JSON at offset 5: unexpected character '1'"),
        ("{a:1}", "invalid JSON at offset 1: unexpected character 'a'"),
        (#""open"#, "invalid JSON at offset 5: unexpected end of input"),
        (#""\x""#, "invalid JSON at offset 1: invalid escape"),
        (#""\ud800""#, "invalid JSON at offset 1: unpaired surrogate"),
        ("[1] 2", "invalid JSON at offset 4: unexpected text after the value"),
        ("\"tab\there\"", "invalid JSON at offset 4: control character in a string (escape it)"),
        ("\u{01}", #"invalid JSON at offset 0: unexpected character '\x1'"#),
    ])
    func rejectsWhatIsNotJSON(text: String, message: String) {
        #expect {
            try JSONValue(commandLineArgument: text)
        } throws: { error in
            (error as? JSONParseError)?.commandLineDescription == message
        }
    }

    @Test func acceptsNestingUpTo256Levels() {
        let deep = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        #expect(throws: JSONParseError(.depthLimitExceeded(limit: 256), at: 256)) { try JSONValue(commandLineArgument: deep) }
        let fine = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(throws: Never.self) { try JSONValue(commandLineArgument: fine) }
    }

    @Test func printsCompactlyWithEscapes() {
        let value: JSONValue = [
            "text": "q\"\\\n\t\u{01}é",
            "numbers": [-3, 2.5, .double(.infinity), .double(.nan)],
            "flags": [true, nil],
        ]
        #expect(value.commandLineText == #"{"text":"q\"\\\n\t\u0001é","numbers":[-3,2.5,null,null],"flags":[true,null]}"#)
    }

    /// Doubles print as the tools always printed them, Swift's shortest round-tripping form,
    /// not `JSON.stringify`'s (`serializedString()`).
    @Test(arguments: [
        (2.0, "2.0"), (1e-7, "1e-07"), (-0.0, "-0.0"), (1e21, "1e+21"), (0.1, "0.1"), (1.5e300, "1.5e+300"),
        (9_223_372_036_854_775_808.0, "9.223372036854776e+18"),
    ])
    func printsADoubleInSwiftsForm(value: Double, text: String) {
        #expect(JSONValue.double(value).commandLineText == text)
        #expect(JSONValue.array([.double(value)]).commandLineText == "[\(text)]")
    }

    @Test(arguments: [#"{"a":[1,2.25,"x",null,true,{"b":{}}]}"#, #""\u001f""#, "-0.5", "[]", #""😀""#, #"{"z":1,"a":2,"z":3}"#])
    func roundTrips(text: String) throws {
        #expect(try JSONValue(commandLineArgument: text).commandLineText == text)
    }
}
