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
        for field in self.headers where HTTPHeaders.namesEqual(field.name, "Connection") {
            field.value.forEachHTTPListElement(keepingEmpty: false) { option in
                let token = option.utf8
                if token.elementsEqual("close".utf8, by: { HTTPHeaders.asciiLowercased($0) == $1 }) { sawClose = true }
                if token.elementsEqual("keep-alive".utf8, by: { HTTPHeaders.asciiLowercased($0) == $1 }) { sawKeepAlive = true }
            }
        }
        if sawClose { return false }
        return self.versionMinor >= 1 || sawKeepAlive
    }
}

extension String {
    /// Calls `body` with each element of a comma-separated list (RFC 9110 §5.6.1), OWS
    /// trimmed, in order, without allocating; empty elements only when `keepingEmpty`.
    package func forEachHTTPListElement<Failure: Error>(
        keepingEmpty: Bool, _ body: (Substring) throws(Failure) -> Void
    ) throws(Failure) {
        var start = self.startIndex
        while true {
            let end = self[start...].firstIndex(of: ",") ?? self.endIndex
            let element = self[start..<end].trimmingHTTPWhitespace()
            if keepingEmpty || !element.isEmpty { try body(element) }
            guard end < self.endIndex else { return }
            start = self.index(after: end)
        }
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
