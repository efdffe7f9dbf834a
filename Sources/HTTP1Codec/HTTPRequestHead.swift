/// The request line and header fields of one HTTP/1.1 request (RFC 9112 §3).
package struct HTTPRequestHead: Sendable, Hashable {
    /// The method token, e.g. `GET` (case-sensitive, RFC 9110 §9.1).
    package var method: String
    /// The request target in origin form (`/path?query`, RFC 9112 §3.2.1).
    package var target: String
    package var headers: HTTPHeaders

    package init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.method = method
        self.target = target
        self.headers = headers
    }
}
