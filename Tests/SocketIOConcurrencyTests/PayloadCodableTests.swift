import Foundation
import SocketIOConcurrency
import Testing

/// `PayloadEncoder` / `PayloadDecoder`: Codable values to and from `Payload`, `Data` kept binary.
@Suite struct PayloadCodableTests {
    enum Mood: String, Codable, Equatable { case happy, grumpy }

    struct Inner: Codable, Equatable {
        var tags: [String]
        var score: Double
    }

    struct Message: Codable, Equatable {
        var text: String
        var count: Int
        var small: Int8
        var big: UInt64
        var ok: Bool
        var image: Data
        var link: URL
        var mood: Mood
        var inner: Inner
        var maybe: String?
        var list: [Inner]
    }

    static let message = Message(
        text: "hi", count: 3, small: -4, big: UInt64.max, ok: true, image: Data([0, 1, 255]),
        link: URL(string: "https://example.com/a?b=c")!, mood: .grumpy,
        inner: Inner(tags: ["a", "b"], score: 1.5), maybe: nil,
        list: [Inner(tags: [], score: 0), Inner(tags: ["z"], score: -2)])

    @Test func encodesTheShapeJSONEncoderWouldWithDataBinary() throws {
        let payload = try SocketIOClient.Payload(encoding: Self.message)
        #expect(payload["text"] == "hi")
        #expect(payload["count"] == 3)
        #expect(payload["small"] == -4)
        #expect(payload["big"] == .double(Double(UInt64.max)))  // above Int.max: a JS number
        #expect(payload["ok"] == true)
        #expect(payload["image"] == .data(Data([0, 1, 255])))  // binary, not base64
        #expect(payload["link"] == "https://example.com/a?b=c")
        #expect(payload["mood"] == "grumpy")
        #expect(payload["inner"] == ["tags": ["a", "b"], "score": 1.5])
        #expect(payload["maybe"] == nil)  // nil optionals are left out, as JSONEncoder does
        #expect(payload["list"]?[1] == ["tags": ["z"], "score": -2.0])
    }

    @Test func roundTrips() throws {
        var message = Self.message
        message.big = 42  // UInt64.max goes through a Double and back only approximately
        let payload = try SocketIOClient.Payload(encoding: message)
        #expect(try payload.decode(Message.self) == message)
        #expect(try SocketIOClient.PayloadDecoder().decode(Message.self, from: payload) == message)
    }

    @Test func topLevelValuesAndCollections() throws {
        #expect(try SocketIOClient.Payload(encoding: 5) == 5)
        #expect(try SocketIOClient.Payload(encoding: "s") == "s")
        #expect(try SocketIOClient.Payload(encoding: [1, 2]) == [1, 2])
        #expect(try SocketIOClient.Payload(encoding: ["k": true]) == ["k": true])
        #expect(try SocketIOClient.Payload(encoding: Optional<Int>.none) == .null)
        #expect(try SocketIOClient.Payload(encoding: Data([9])) == .data(Data([9])))
        let payload: SocketIOClient.Payload = ["a": [1, "x"]]
        #expect(try SocketIOClient.Payload(encoding: payload) == payload)
        #expect(try payload.decode(SocketIOClient.Payload.self) == payload)
        #expect(try SocketIOClient.Payload.int(7).decode(Double.self) == 7)
        #expect(try SocketIOClient.Payload.double(7).decode(Int.self) == 7)
        #expect(try SocketIOClient.Payload.string("AQI=").decode(Data.self) == Data([1, 2]))  // base64 from a JSON-only peer
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        #expect(try SocketIOClient.Payload(encoding: date) == 12.5)  // JSONEncoder's .deferredToDate
        #expect(try SocketIOClient.Payload.double(12.5).decode(Date.self) == date)
    }

    @Test func nonFiniteNumbersAreATypedErrorNamingThePath() {
        struct Reading: Encodable { var values: [Double] }
        #expect(throws: SocketIOClient.Error.invalidSocketData(event: nil, message: "cannot encode Reading at values[1]: inf is not a JSON number")) {
            try SocketIOClient.Payload(encoding: Reading(values: [1, .infinity]))
        }
    }

    static let decodingFailures: [(SocketIOClient.Payload, String)] = [
        (["text": "hi"], "cannot decode Inner: no value for tags"),
        (["tags": ["a", 1], "score": 1], "cannot decode Inner at tags[1]: Expected String but found a number"),
        (["tags": [], "score": true], "cannot decode Inner at score: Expected Double but found a boolean"),
        (["tags": "x", "score": 1], "cannot decode Inner at tags: Expected Array<Any> but found a string"),
        ("text", "cannot decode Inner at the payload: Expected Dictionary<String, Any> but found a string"),
    ]

    @Test(arguments: Self.decodingFailures)
    func decodingErrorsNameTheEventTypeAndPath(payload: SocketIOClient.Payload, message: String) {
        #expect(throws: SocketIOClient.Error.invalidSocketData(event: "chat", message: message)) {
            try payload.decode(Inner.self, event: "chat")
        }
    }

    @Test func numbersDecodeOnlyWhenExact() throws {
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.double(2.5).decode(Int.self) }
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.int(300).decode(UInt8.self) }
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.int(1).decode(Bool.self) }
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.bool(true).decode(Int.self) }
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.double(1e300).decode(Float.self) }
        // A server's `1e999` reads as infinity, which `Decimal(Double)` would trap on.
        struct Price: Decodable { var price: Decimal }
        #expect(throws: SocketIOClient.Error.self) {
            try SocketIOClient.Payload.object(["price": .double(.infinity)]).decode(Price.self)
        }
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.double(-.infinity).decode(Decimal.self) }
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.double(.nan).decode(Decimal.self) }
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.double(1e300).decode(Decimal.self) }
        #expect(try SocketIOClient.Payload.double(12.5).decode(Decimal.self) == Decimal(12.5))
        #expect(throws: SocketIOClient.Error.self) { try SocketIOClient.Payload.string("%%").decode(Data.self) }
    }
}
