import CommandLineSupport
import Testing

/// The tools' JSON reader and writer.
@Suite struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSON.parse(
            #" {"s": "a\"b\\c\n\u00e9\ud83d\ude00", "i": -12, "d": 1.5e3, "t": true, "f": false, "n": null, "a": [1, [], {}]} "#)
        #expect(
            value
                == .object([
                    JSON.Member("s", .string("a\"b\\c\né😀")),
                    JSON.Member("i", .int(-12)),
                    JSON.Member("d", .double(1500)),
                    JSON.Member("t", .bool(true)),
                    JSON.Member("f", .bool(false)),
                    JSON.Member("n", .null),
                    JSON.Member("a", .array([.int(1), .array([]), .object([])])),
                ]))
    }

    @Test func anIntegerTooLargeForIntIsADouble() throws {
        #expect(try JSON.parse("9223372036854775807") == .int(Int.max))
        #expect(try JSON.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
    }

    @Test(arguments: [
        "", "hello", "tru", "truex", "01", "1.", "-", "1e", "[1,]", "{\"a\" 1}", "{a:1}", "\"open",
        "\"\\x\"", "\"\\ud800\"", "[1] 2", "\"tab\there\"", "nul",
    ])
    func rejectsWhatIsNotJSON(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSON.parse(text) }
    }

    @Test func rejectsNestingPastTheLimit() {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: JSONSyntaxError.self) { try JSON.parse(deep) }
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try JSON.parse(fine) }
    }

    @Test func serializesCompactlyWithEscapes() {
        let value = JSON.object([
            JSON.Member("text", .string("q\"\\\n\t\u{01}é")),
            JSON.Member("numbers", .array([.int(-3), .double(2.5), .double(.infinity)])),
            JSON.Member("flags", .array([.bool(true), .null])),
        ])
        #expect(value.serialized == #"{"text":"q\"\\\n\t\u0001é","numbers":[-3,2.5,null],"flags":[true,null]}"#)
    }

    @Test(arguments: [#"{"a":[1,2.25,"x",null,true,{"b":{}}]}"#, #""\u001f""#, "-0.5", "[]", #""😀""#])
    func roundTrips(text: String) throws {
        #expect(try JSON.parse(text).serialized == text)
        #expect(try JSON.parse(JSON.parse(text).serialized) == JSON.parse(text))
    }

    @Test func parsesAWhitespaceSeparatedSequence() throws {
        #expect(
            try JSON.parseSequence(#" 1 "two"  {"three":3}[4]"#) == [
                .int(1), .string("two"), .object([JSON.Member("three", .int(3))]), .array([.int(4)]),
            ])
        #expect(try JSON.parseSequence("   ") == [])
        #expect(throws: JSONSyntaxError.self) { try JSON.parseSequence("1 two") }
    }
}
