import Testing

@testable import EngineIOProtocol

/// engine.io-protocol v4, "Handshake".
@Suite struct EngineHandshakeTests {
    @Test func decodesTheSpecExample() throws {
        let handshake = try EngineHandshake(
            jsonText: """
                {
                  "sid": "lv_VI97HAXpY6yYWAAAC",
                  "upgrades": ["websocket"],
                  "pingInterval": 25000,
                  "pingTimeout": 20000,
                  "maxPayload": 1000000
                }
                """)
        #expect(
            handshake
                == EngineHandshake(
                    sid: "lv_VI97HAXpY6yYWAAAC", upgrades: ["websocket"],
                    pingInterval: .seconds(25), pingTimeout: .seconds(20), maxPayload: 1_000_000))
    }

    @Test func optionalFieldsDefault() throws {
        let handshake = try EngineHandshake(jsonText: #"{"sid":"a","pingInterval":300,"pingTimeout":200.5,"extra":[1]}"#)
        #expect(handshake.upgrades == [])
        #expect(handshake.maxPayload == nil)
        #expect(handshake.pingTimeout == .microseconds(200_500))
    }

    @Test(arguments: [
        "",
        "[]",
        #"{"sid":"a","pingInterval":1}"#,
        #"{"sid":"","pingInterval":1,"pingTimeout":1}"#,
        #"{"sid":1,"pingInterval":1,"pingTimeout":1}"#,
        #"{"pingInterval":1,"pingTimeout":1}"#,
        #"{"sid":"a","pingInterval":-1,"pingTimeout":1}"#,
        #"{"sid":"a","pingInterval":"1","pingTimeout":1}"#,
        #"{"sid":"a","pingInterval":true,"pingTimeout":1}"#,
        #"{"sid":"a","pingInterval":1e300,"pingTimeout":1}"#,
        #"{"sid":"a","pingInterval":1,"pingTimeout":1,"upgrades":"websocket"}"#,
        #"{"sid":"a","pingInterval":1,"pingTimeout":1,"upgrades":[1]}"#,
        #"{"sid":"a","pingInterval":1,"pingTimeout":1,"maxPayload":0}"#,
        #"{"sid":"a","pingInterval":1,"pingTimeout":1,"maxPayload":1.5}"#,
        #"{"sid":"a","pingInterval":1,"pingTimeout":1"#,
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    ])
    func rejectsInvalidHandshakes(text: String) {
        #expect(throws: EngineProtocolError.self) { try EngineHandshake(jsonText: text) }
        do {
            _ = try EngineHandshake(jsonText: text)
        } catch {
            guard case .invalidHandshake = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
    }
}
