/// Something that performs HTTP requests and streams their responses.
///
/// The seam between the products and a backend: `HTTPClient` (RealtimeHTTP's HTTP/1.1 client
/// over RealtimeIO's sockets) and `URLSessionHTTPTransport` (Foundation's URLSession, on every
/// platform) implement it; another backend (SwiftNIO, Network.framework) only needs this
/// module, which depends on nothing but the standard library and Foundation.
package protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head arrived; the body streams after.
    func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse

    /// Closes the keep-alive connections no request is using, so none outlives the session
    /// that opened it or serves the next one after the network failed (default: nothing).
    func closeIdleConnections()
}

extension HTTPTransport {
    /// Transports that keep no connections of their own have nothing to close.
    package func closeIdleConnections() {}
}
