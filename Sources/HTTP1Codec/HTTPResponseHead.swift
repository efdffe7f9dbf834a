/// The status line and header fields of one HTTP/1.x response (RFC 9112 §4, §5).
package struct HTTPResponseHead: Sendable, Hashable {
    /// The three-digit status code (RFC 9110 §15).
    package var status: Int
    /// The reason phrase; may be empty. Clients should ignore it (RFC 9112 §4).
    package var reason: String
    package var headers: HTTPHeaders
    /// The minor version of `HTTP/1.x`: 1 for HTTP/1.1, 0 for HTTP/1.0.
    package var versionMinor: Int

    package init(status: Int, reason: String, headers: HTTPHeaders = HTTPHeaders(), versionMinor: Int = 1) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.versionMinor = versionMinor
    }

    /// Whether the connection may carry another exchange after this response, judged from
    /// the version and the `Connection` field only (RFC 9112 §9.3). The body framing matters
    /// too: see ``HTTPResponseParser/canReuseConnection``.
    package var isKeepAlive: Bool {
        var sawClose = false
        var sawKeepAlive = false
        for value in self.headers.values(name: "Connection") {
            for option in value.split(separator: ",") {
                let token = option.trimmingHTTPWhitespace().lowercased()
                if token == "close" { sawClose = true }
                if token == "keep-alive" { sawKeepAlive = true }
            }
        }
        if sawClose { return false }
        return self.versionMinor >= 1 || sawKeepAlive
    }
}

extension StringProtocol {
    /// Drops leading and trailing SP and HTAB (RFC 9110 §5.6.3 OWS).
    package func trimmingHTTPWhitespace() -> Substring {
        var start = self.startIndex
        var end = self.endIndex
        while start < end, self[start] == " " || self[start] == "\t" { start = self.index(after: start) }
        while end > start {
            let before = self.index(before: end)
            guard self[before] == " " || self[before] == "\t" else { break }
            end = before
        }
        return Substring(self[start..<end])
    }
}
