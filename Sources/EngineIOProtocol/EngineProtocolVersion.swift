/// The Engine.IO protocol revision a session speaks, sent as the `EIO` query parameter.
///
/// - ``v4`` (engine.io-protocol v4, Socket.IO 3+ servers): the server pings, polling payloads
///   are joined by `0x1E`, WebSocket binary frames carry raw bytes.
/// - ``v3`` (engine.io-protocol v3, Socket.IO 1.x/2.x servers): the client pings, polling
///   payloads are length-prefixed (`<length>:<packet>`), WebSocket binary frames start with the
///   packet type byte. Clients should ask for base64 polling payloads with `b64=1`.
package enum EngineProtocolVersion: Int, Sendable, Hashable {
    case v3 = 3
    case v4 = 4

    /// The value of the `EIO` query parameter.
    package var queryValue: String { String(self.rawValue) }

    /// The query parameters of an Engine.IO request (engine.io-protocol v4, "Transports":
    /// `EIO`, `transport`, `sid`; v3 adds `b64=1` on polling so binary arrives base64-encoded).
    package func queryItems(transport: EngineTransport, sid: String?) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = [("EIO", self.queryValue), ("transport", transport.rawValue)]
        if let sid {
            items.append(("sid", sid))
        }
        if self == .v3 && transport == .polling {
            items.append(("b64", "1"))
        }
        return items
    }
}
