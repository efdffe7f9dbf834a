package import Foundation

/// A response head and its streamed body.
package struct HTTPClientResponse: Sendable {
    package var status: Int
    package var reason: String
    package var headers: HTTPHeaders
    /// The URL that produced this response (after redirects).
    package var url: URL
    package var body: HTTPResponseBody

    package init(status: Int, reason: String, headers: HTTPHeaders, url: URL, body: HTTPResponseBody) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.url = url
        self.body = body
    }
}
