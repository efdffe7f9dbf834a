/// How the engine writes `connectParams` and the session id into its polling and WebSocket
/// URLs, byte for byte as socket.io-client-swift 16.x does.
///
/// Upstream builds the query as text: `"&\(key.urlEncode()!)=\("\(value)".urlEncode()!)"` per
/// parameter, where `urlEncode()` is `addingPercentEncoding(withAllowedCharacters:)` with
/// `CharacterSet(charactersIn: "!*'();:@&=+$,/?%#[]\" {}^|").inverted`
/// (`Source/SocketIO/Util/SocketExtensions.swift`), and sets it as the URL's
/// `percentEncodedQuery` (`SocketEngine.createURLs()`). Foundation encodes every non-ASCII
/// character as its UTF-8 bytes (`%C3%A9`), in upper-case hex.
///
/// So `+` is sent as `%2B`: a server that decodes the query as a form (python's `parse_qs`,
/// Node's `querystring`) would read a raw `+` as a space. `URLQueryItem` leaves `+`, `/`, `?`,
/// `:`, `@`, `!`, `$`, `'`, `(`, `)`, `*`, `,`, `;` raw and must not be used for these values.
///
/// The bytes upstream keeps are the RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`)
/// plus ASCII control characters, DEL, `<`, `>`, `\` and `` ` ``; those last ones are not
/// valid in a URL query, and upstream traps on them (`URLComponents.percentEncodedQuery`
/// refuses the text). Here they are percent-encoded too, so the server decodes the value the
/// app passed. Every other input is encoded exactly as upstream encodes it.
enum EngineQueryEncoding {
    /// Percent-encodes `text` for a query key or value: every UTF-8 byte except the RFC 3986
    /// unreserved characters becomes `%XX` (upper-case hex).
    static func encode(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy(Self.isUnreserved) { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if Self.isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `&key=value` for every parameter (keys sorted, so the URL is stable), each key and
    /// value (`"\(value)"`, as upstream formats it) encoded with ``encode(_:)``.
    static func query(for connectParams: [String: Any]?) -> String {
        guard let connectParams else { return "" }
        var query = ""
        for (key, value) in connectParams.sorted(by: { $0.key < $1.key }) {
            query += "&" + Self.encode(key) + "=" + Self.encode("\(value)")
        }
        return query
    }

    /// A percent-encoded query with `name=value` appended (`value` encoded with ``encode(_:)``).
    static func appending(_ name: String, _ value: String, to query: String?) -> String {
        let parameter = name + "=" + Self.encode(value)
        guard let query, !query.isEmpty else { return parameter }
        return query + "&" + parameter
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
