import Foundation
import Testing

@testable import SocketIO

/// The package's one reading of untyped values: lenient for emits, strict for `Payload`.
@Suite struct SocketValueConversionPolicyTests {
    @Test func numbersAreToldApartByClassThenEncoding() {
        let items: [Any] = [
            "e", NSNumber(value: true), NSNumber(value: Int8(1)), NSNumber(value: UInt64.max),
            NSNumber(value: UInt32(7)), Float(1.5), UInt8(3),
        ]
        let text = SocketPacket.packetFromEmit(items, id: -1, nsp: "/", ack: false).packetString
        // UInt64.max goes out as the JavaScript number it is, not as -1.
        #expect(text == #"2["e",true,1,18446744073709552000,7,1.5,3]"#)
    }

    @Test func emitsPutNullWhereJSONCannotHoldAValueAndStrictThrows() throws {
        struct Opaque {}
        struct SelfRepresenting: SocketData { func socketRepresentation() -> SocketData { self } }
        let lenient = SocketValueConversion.jsonValue(
            from: [
                "a": Opaque(), "b": Double.infinity, "c": SelfRepresenting(),
                "d": [1: "one"] as [AnyHashable: Any],
            ] as [String: Any])
        #expect(SocketValueConversion.any(from: lenient) as? [String: Any] != nil)
        #expect(lenient["a"] == .null && lenient["b"] == .null && lenient["c"] == .null)
        #expect(lenient["d"]?["1"]?.stringValue == "one")

        #expect(throws: SocketValueConversion.Failure.self) {
            try SocketValueConversion.strictJSONValue(from: [Opaque()], maximumDepth: 8)
        }
        #expect(throws: SocketValueConversion.Failure.self) {
            try SocketValueConversion.strictJSONValue(from: [1: "one"] as [AnyHashable: Any], maximumDepth: 8)
        }
        #expect(throws: SocketValueConversion.Failure.self) {
            try SocketValueConversion.strictJSONValue(from: [[[1]]], maximumDepth: 2)
        }
        // The strict form keeps what JSON cannot serialize but a payload can hold.
        #expect(try SocketValueConversion.strictJSONValue(from: Double.infinity, maximumDepth: 8) == .double(.infinity))
        #expect(try SocketValueConversion.strictJSONValue(from: Optional<Int>.none as Any, maximumDepth: 8) == .null)
        #expect(try SocketValueConversion.strictJSONValue(from: Optional(4) as Any, maximumDepth: 8) == .int(4))
    }
}
