import TestSupport
import Testing

@testable import EngineIOProtocol

@Suite struct JSONSerializerTests {
    @Test func writesCompactText() {
        let value: JSONValue = ["e", ["a": 1, "b": [true, false, nil], "c": "x"], 2.5, -3]
        #expect(value.serializedString() == #"["e",{"a":1,"b":[true,false,null],"c":"x"},2.5,-3]"#)
    }

    @Test func escapesLikeJSONStringify() {
        let value = JSONValue.string("q\"b\\s/n\nr\rt\tb\u{08}f\u{0C}z\u{00}u\u{1F}é€😀\u{7F}")
        #expect(value.serializedString() == #""q\"b\\s/n\nr\rt\tb\bf\fz\u0000u\u001fé€😀"# + "\u{7F}\"")
    }

    @Test(arguments: [
        (1.0, "1"),
        (-1.0, "-1"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (-2.5, "-2.5"),
        (123.456, "123.456"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e21, "1.5e+21"),
        (123456789012345680000.0, "123456789012345680000"),
        (9007199254740992.0, "9007199254740992"),
        (9007199254740994.0, "9007199254740994"),
        (0.000001, "0.000001"),
        (0.0000012, "0.0000012"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (Double.leastNonzeroMagnitude, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (1e300, "1e+300"),
        (25000.0, "25000"),
        (Double.nan, "null"),
        (Double.infinity, "null"),
        (-Double.infinity, "null"),
    ])
    func printsDoublesLikeJavaScript(value: Double, expected: String) {
        #expect(JSONValue.double(value).serializedString() == expected)
    }

    @Test(arguments: [0, 1, -1, 9, 10, 99, 100, Int.max, Int.min, 1_234_567_890])
    func printsIntegers(value: Int) {
        #expect(JSONValue.int(value).serializedString() == String(value))
    }

    @Test func doublesRoundTripThroughText() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            let bits = generator.next()
            let value = Double(bitPattern: bits)
            guard value.isFinite else { continue }
            let text = JSONValue.double(value).serializedString()
            let parsed = try JSONValue(parsing: text)
            #expect(parsed.doubleValue == value, "\(value) printed as \(text)")
        }
    }

    @Test func valuesRoundTripThroughText() throws {
        let values: [JSONValue] = [
            nil, true, false, 0, -7, .double(0.5), "", "é\u{0}\"\\",
            [], [:], [[[["deep"]]]], ["k": ["n": [1, 2, ["z": nil]]]],
        ]
        for value in values {
            #expect(try JSONValue(parsing: value.serializedString()) == value)
        }
    }

    @Test func binaryPrintsNumberedPlaceholders() {
        let value: JSONValue = ["e", .binary([1]), ["x": .binary([2])]]
        #expect(
            value.serializedString()
                == #"["e",{"_placeholder":true,"num":0},{"x":{"_placeholder":true,"num":1}}]"#)
        #expect(value.containsBinary)
        #expect(!JSONValue.array(["e"]).containsBinary)
    }

    @Test func objectSubscriptEditsInPlace() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 3
        object["c"] = 4
        object["b"] = nil
        #expect(JSONValue.object(object).serializedString() == #"{"a":3,"c":4}"#)
    }
}
