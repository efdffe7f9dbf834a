package import RealtimeTime

/// The data of the Engine.IO v4 `open` packet.
///
/// engine.io-protocol v4, "Handshake": the server answers the first request with an `open`
/// packet whose JSON payload holds `sid`, `upgrades`, `pingInterval` and `pingTimeout` (both in
/// milliseconds) and `maxPayload` (bytes per polling body). Example from the spec:
/// `{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}`.
///
/// ```swift
/// let handshake = try EngineHandshake(jsonText: openPacketData)
/// handshake.pingInterval + handshake.pingTimeout // the liveness window
/// ```
package struct EngineHandshake: Sendable, Hashable {
    /// The session id, sent as `sid` in every later request's query.
    package var sid: String
    /// Transports the session may upgrade to (e.g. `["websocket"]`).
    package var upgrades: [String]
    /// How often the server pings.
    package var pingInterval: TimeAmount
    /// How long the server waits for a pong, and the client's grace after a missed ping.
    package var pingTimeout: TimeAmount
    /// The largest polling body the server accepts, in bytes; `nil` when not announced (v3).
    package var maxPayload: Int?

    /// A handshake with the given fields (tests, and servers of other revisions).
    package init(sid: String, upgrades: [String], pingInterval: TimeAmount, pingTimeout: TimeAmount, maxPayload: Int?) {
        self.sid = sid
        self.upgrades = upgrades
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.maxPayload = maxPayload
    }

    /// Parses the JSON text carried by an `open` packet.
    ///
    /// `sid` (non-empty string), `pingInterval` and `pingTimeout` (non-negative numbers) are
    /// required; `upgrades` defaults to none, `maxPayload` to `nil`. Unknown keys are ignored.
    ///
    /// - Throws: ``EngineProtocolError/invalidHandshake(_:)``.
    package init(jsonText: String) throws(EngineProtocolError) {
        let value: JSONValue
        do {
            value = try JSONParser(maximumDepth: 8).parse(jsonText)
        } catch {
            throw .invalidHandshake("malformed JSON (\(error.kind))")
        }
        guard case .object(let object) = value else {
            throw .invalidHandshake("not a JSON object")
        }
        guard let sid = object["sid"]?.stringValue, !sid.isEmpty else {
            throw .invalidHandshake("missing sid")
        }
        var upgrades: [String] = []
        if let upgradesValue = object["upgrades"], !upgradesValue.isNull {
            guard let array = upgradesValue.arrayValue else {
                throw .invalidHandshake("upgrades is not an array")
            }
            for element in array {
                guard let name = element.stringValue else {
                    throw .invalidHandshake("upgrades holds a non-string")
                }
                upgrades.append(name)
            }
        }
        self.sid = sid
        self.upgrades = upgrades
        self.pingInterval = try Self.milliseconds(object["pingInterval"], name: "pingInterval")
        self.pingTimeout = try Self.milliseconds(object["pingTimeout"], name: "pingTimeout")
        if let maxPayloadValue = object["maxPayload"], !maxPayloadValue.isNull {
            guard let maxPayload = maxPayloadValue.intValue, maxPayload > 0 else {
                throw .invalidHandshake("maxPayload is not a positive integer")
            }
            self.maxPayload = maxPayload
        } else {
            self.maxPayload = nil
        }
    }

    /// The largest duration accepted for either timer: one day. Keeps deadline arithmetic
    /// far away from overflow whatever a hostile server announces.
    private static let maximumMilliseconds = 86_400_000.0

    private static func milliseconds(_ value: JSONValue?, name: String) throws(EngineProtocolError) -> TimeAmount {
        guard let number = value?.doubleValue, number.isFinite, number >= 0 else {
            throw .invalidHandshake("\(name) is not a non-negative number")
        }
        guard number <= Self.maximumMilliseconds else {
            throw .invalidHandshake("\(name) is larger than one day")
        }
        return .milliseconds(number)
    }
}
