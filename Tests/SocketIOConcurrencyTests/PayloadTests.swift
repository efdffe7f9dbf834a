import Foundation
import SocketIOConcurrency
import Testing

@Suite struct PayloadTests {
    typealias Payload = SocketIOClient.Payload

    @Test func seedLiteralBuildsAnObject() {
        let payload: SocketIOClient.Payload = [
            "message": "hi",
            "attempt": 1,
            "ok": true,
        ]
        #expect(payload == .object(["message": .string("hi"), "attempt": .int(1), "ok": .bool(true)]))
    }

    @Test func everyLiteralKindMapsToItsCase() {
        let string: Payload = "s"
        let integer: Payload = 42
        let float: Payload = 2.5
        let boolean: Payload = false
        let null: Payload = nil
        let array: Payload = ["a", 1, nil]
        #expect(string == .string("s"))
        #expect(integer == .int(42))
        #expect(float == .double(2.5))
        #expect(boolean == .bool(false))
        #expect(null == .null)
        #expect(array == .array([.string("a"), .int(1), .null]))
    }

    static let nested: Payload = .object([
        "text": "line\n\"quoted\"",
        "count": .int(-3),
        "ratio": .double(0.25),
        "flags": [true, false],
        "nothing": .null,
        "bytes": .data(Data([0, 1, 255])),
        "list": [1, [2, ["deep": "yes"]]],
    ])

    @Test func convertsToSocketDataAndBack() throws {
        let representation = try Self.nested.socketRepresentation()
        #expect(try Payload(socketData: representation) == Self.nested)
        #expect(try Payload(socketValue: Self.nested.foundationValue) == Self.nested)
        // The Foundation form holds Foundation values, not payloads.
        let object = try #require(representation as? [String: Any])
        #expect(object["flags"] as? [Bool] == [true, false])
        #expect(object["bytes"] as? Data == Data([0, 1, 255]))
        #expect(object["nothing"] is NSNull)
    }

    @Test func swiftBooleansStayDistinctFromIntegers() throws {
        let items: [Any] = [true, 1, 0, false, 1.0, Int8(3), UInt64.max]
        #expect(
            try Payload(socketItems: items)
                == .array([
                    .bool(true), .int(1), .int(0), .bool(false), .double(1.0), .int(3), .double(Double(UInt64.max)),
                ]))
    }

    @Test func foundationJSONBooleansStayDistinctFromIntegers() throws {
        let json = Data(#"[true, 1, 0, false, 1.5, 3.0, 12345678901234, null, "s", {"k": [true]}]"#.utf8)
        let parsed = try #require(try JSONSerialization.jsonObject(with: json) as? [Any])
        #expect(
            try Payload(socketItems: parsed)
                == .array([
                    .bool(true), .int(1), .int(0), .bool(false), .double(1.5), .double(3.0),
                    .int(12_345_678_901_234), .null, .string("s"), .object(["k": [true]]),
                ]))
    }

    @Test func foundationNumbersKeepTheirKind() throws {
        #expect(try Payload(socketValue: NSNumber(value: true)) == .bool(true))
        #expect(try Payload(socketValue: NSNumber(value: 7)) == .int(7))
        #expect(try Payload(socketValue: NSNumber(value: 7.5)) == .double(7.5))
        #expect(try Payload(socketValue: NSNumber(value: UInt64.max)) == .double(Double(UInt64.max)))
        #expect(try Payload(socketValue: NSString(string: "ns")) == .string("ns"))
        #expect(try Payload(socketValue: NSData(bytes: [1, 2] as [UInt8], length: 2)) == .data(Data([1, 2])))
    }

    @Test func eventItemsUnwrapOneItemAndWrapSeveral() throws {
        #expect(try Payload(socketItems: ["only"]) == .string("only"))
        #expect(try Payload(socketItems: ["a", 2]) == .array(["a", 2]))
        #expect(try Payload(socketItems: []) == .array([]))
        #expect(try Payload(socketItems: [["inner"]]) == .array(["inner"]))
    }

    @Test func optionalValuesBecomeNullOrTheirValue() throws {
        let missing: String? = nil
        let present: Int? = 4
        #expect(try Payload(socketItems: [missing as Any, present as Any]) == .array([.null, .int(4)]))
    }

    struct Point: SocketData {
        let x: Int
        func socketRepresentation() -> SocketData { ["x": self.x] }
    }

    struct Failing: SocketData {
        struct Refused: Error {}
        func socketRepresentation() throws -> SocketData { throw Refused() }
    }

    @Test func customSocketDataConvertsThroughItsRepresentation() throws {
        #expect(try Payload(socketData: Point(x: 3)) == .object(["x": 3]))
        #expect(throws: SocketIOClient.Error.self) { try Payload(socketData: Failing()) }
    }

    @Test func unsupportedValuesThrowTypedErrors() {
        final class Opaque {}
        #expect(throws: SocketIOClient.Error.unsupportedPayloadType(typeName: "Opaque")) {
            try Payload(socketValue: Opaque())
        }
        let badKeys: NSDictionary = [NSNumber(value: 1): "one"]
        #expect {
            try Payload(socketValue: badKeys)
        } throws: { error in
            guard case .unsupportedDictionaryKeyType = error as? SocketIOClient.Error else { return false }
            return true
        }
    }

    @Test func hostileNestingIsRefusedNotOverflowed() {
        var value: Any = "leaf"
        for _ in 0..<2000 { value = [value] }
        let deep = value
        #expect {
            try Payload(socketValue: deep)
        } throws: { error in
            guard case .invalidSocketData = error as? SocketIOClient.Error else { return false }
            return true
        }
    }

    @Test func codableRoundTripKeepsBooleansAndNumbers() throws {
        let payload: Payload = ["b": true, "i": 1, "d": 1.5, "s": "x", "n": nil, "a": [false, 0]]
        let encoded = try JSONEncoder().encode(payload)
        #expect(try JSONDecoder().decode(Payload.self, from: encoded) == payload)
        let decoded = try JSONDecoder().decode(Payload.self, from: Data(#"[true, 1, 2.5, null]"#.utf8))
        #expect(decoded == [true, 1, 2.5, nil])
    }

    @Test func descriptionIsReadableAndDeterministic() {
        let payload: Payload = ["message": "hi", "attempt": 1, "ok": true]
        #expect(payload.description == #"{"attempt": 1, "message": "hi", "ok": true}"#)
        #expect(Self.nested.description.contains(#""text": "line\n\"quoted\"""#))
        #expect(Payload.data(Data(count: 3)).description == "<3 bytes>")
        #expect(Payload.array([.null, .double(0.5)]).description == "[null, 0.5]")
    }

    @Test func isHashableAndHasAccessors() {
        let set: Set<Payload> = [1, 1, "1", true]
        #expect(set.count == 3)
        #expect(Self.nested["count"]?.intValue == -3)
        #expect(Self.nested["list"]?[1]?[1]?["deep"]?.stringValue == "yes")
        #expect(Self.nested["flags"]?[5] == nil)
        #expect(Payload.int(2).doubleValue == 2)
        #expect(Payload.bool(true).intValue == nil)
    }
}
