/// The query of an Engine.IO request, as text (engine.io-protocol v4, "Transports"): which
/// transport, the revision (`EIO`), the session id once known, the application's parameters,
/// and polling's cache-defeating `t`.
///
/// Built as percent-encoded text, byte for byte as socket.io-client-swift 16.x builds it
/// (`SocketEngine.createURLs()`): `transport=polling&b64=1&<params>&EIO=4` for polling and
/// `transport=websocket&<params>&EIO=4` for WebSocket, then `&sid=…` and (polling) `&t=…`.
/// `b64=1` asks an Engine.IO 3 server for base64 binary in polling payloads; it is kept for v4
/// too, as upstream does (v4 servers ignore it).
///
/// Keys and values are encoded with ``encode(_:)``: every UTF-8 byte but the RFC 3986
/// unreserved characters becomes `%XX`, so `+` goes out as `%2B` (a server that decodes the
/// query as a form would read a raw `+` as a space).
///
/// ```swift
/// let base = EngineQuery.base(transport: .polling, version: .v4, parameters: [("room", "a+b")])
/// // "transport=polling&b64=1&room=a%2Bb&EIO=4"
/// EngineQuery.appending("sid", "abc", to: base)   // "...&EIO=4&sid=abc"
/// ```
package enum EngineQuery {
    /// The query every request of a session starts from: transport, `b64=1` for polling, the
    /// application's `parameters` in the order given (each encoded), and `EIO`.
    package static func base(
        transport: EngineTransport, version: EngineProtocolVersion, parameters: [(name: String, value: String)]
    ) -> String {
        var query = "transport=" + transport.rawValue
        if transport == .polling { query += "&b64=1" }
        for (name, value) in parameters {
            query += "&" + Self.encode(name) + "=" + Self.encode(value)
        }
        return query + "&EIO=" + version.queryValue
    }

    /// `query` with `name=value` appended (`value` encoded with ``encode(_:)``); `name` alone
    /// when `query` is empty or `nil`.
    package static func appending(_ name: String, _ value: String, to query: String?) -> String {
        let parameter = name + "=" + Self.encode(value)
        guard let query, !query.isEmpty else { return parameter }
        return query + "&" + parameter
    }

    /// The query of a session's requests once `sid` is known (empty: the handshake): `base`
    /// with `&sid=`; for polling, `&t=` last, its value (a counter) appended per request.
    package static func sessionPrefix(base: String, transport: EngineTransport, sid: String?) -> String {
        var query = base
        if let sid, !sid.isEmpty {
            query = Self.appending("sid", sid, to: query)
        }
        if transport == .polling {
            query = Self.appending("t", "", to: query)
        }
        return query
    }

    /// Percent-encodes `text` for a query key or value: every UTF-8 byte except the RFC 3986
    /// unreserved characters (`A-Z a-z 0-9 - . _ ~`) becomes `%XX` (upper-case hex).
    package static func encode(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy(Self.isUnreserved) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if Self.isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0x0F))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
