import EngineIOProtocol

/// How the engine writes `connectParams` into its URLs, byte for byte as socket.io-client-swift
/// 16.x does: the Engine.IO query rules (and the percent-encoding) are
/// EngineIOProtocol's ``EngineQuery``; what stays here is upstream's formatting of `Any`
/// values.
///
/// Upstream builds the query as text: `"&\(key.urlEncode()!)=\("\(value)".urlEncode()!)"` per
/// parameter (`Source/SocketIO/Util/SocketExtensions.swift`). Foundation encodes every
/// non-ASCII character as its UTF-8 bytes (`%C3%A9`), in upper-case hex. So `+` is sent as
/// `%2B`: a server that decodes the query as a form (python's `parse_qs`, Node's
/// `querystring`) would read a raw `+` as a space. `URLQueryItem` leaves `+`, `/`, `?`, `:`,
/// `@`, `!`, `$`, `'`, `(`, `)`, `*`, `,`, `;` raw and must not be used for these values.
///
/// The bytes upstream keeps are the RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`)
/// plus ASCII control characters, DEL, `<`, `>`, `\` and `` ` ``; those last ones are not
/// valid in a URL query, and upstream traps on them (`URLComponents.percentEncodedQuery`
/// refuses the text). Here they are percent-encoded too, so the server decodes the value the
/// app passed. Every other input is encoded exactly as upstream encodes it.
enum EngineQueryEncoding {
    /// Percent-encodes `text` for a query key or value (``EngineQuery/encode(_:)``).
    static func encode(_ text: String) -> String {
        EngineQuery.encode(text)
    }

    /// The parameters as (key, `"\(value)"`) pairs, keys sorted so the URL is stable.
    static func parameters(for connectParams: [String: Any]?) -> [(name: String, value: String)] {
        guard let connectParams else { return [] }
        return connectParams.sorted(by: { $0.key < $1.key }).map { ($0.key, "\($0.value)") }
    }
}
