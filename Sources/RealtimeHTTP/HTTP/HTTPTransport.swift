package import Foundation
package import HTTP1Codec
package import RealtimeIO

/// Something that performs HTTP requests and streams their responses.
///
/// Two implementations: ``HTTPClient`` (the native HTTP/1.1 client over ``RealtimeIO``)
/// and `URLSessionHTTPTransport` (Foundation's URLSession, on Linux and Apple platforms).
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

/// One HTTP request.
package struct HTTPClientRequest: Sendable {
    package var method: String
    package var url: URL
    package var headers: HTTPHeaders
    package var body: [UInt8]?
    /// Idle timeout: no progress (connect, headers or body bytes) for this long fails the
    /// request with `.timedOut`. It never caps how long a healthy stream may live.
    package var idleTimeout: Duration
    /// Redirects followed (301, 302, 303, 307, 308) before `.tooManyRedirects`; 0 = none.
    package var maxRedirects: Int
    /// TLS settings for `https` URLs (verification on by default).
    package var tls: TLSConfiguration
    /// The proxy to tunnel through (native client only); direct by default.
    package var proxy: ProxyConfiguration = .direct

    package init(method: String = "GET",
                 url: URL,
                 headers: HTTPHeaders = [:],
                 body: [UInt8]? = nil,
                 idleTimeout: Duration = .seconds(60),
                 maxRedirects: Int = 0,
                 tls: TLSConfiguration = TLSConfiguration()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.idleTimeout = idleTimeout
        self.maxRedirects = maxRedirects
        self.tls = tls
    }
}

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

/// The source behind an ``HTTPResponseBody``; each transport provides its own.
package protocol HTTPBodySource: AnyObject, Sendable {
    /// The next chunk, or `nil` at the end of the body. Bytes are read from the network only
    /// while a caller waits here (backpressure).
    func next() async throws(HTTPClientError) -> [UInt8]?
    /// Stops the body early and releases (or closes) the connection. Idempotent.
    func cancel()
}

/// A response body as an `AsyncSequence` of byte chunks. Unicast: iterate it once.
package struct HTTPResponseBody: AsyncSequence, Sendable {
    package typealias Element = [UInt8]
    package typealias Failure = HTTPClientError

    package let source: any HTTPBodySource

    package init(source: any HTTPBodySource) {
        self.source = source
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        package typealias Element = [UInt8]
        package typealias Failure = HTTPClientError
        let source: any HTTPBodySource

        package mutating func next() async throws(HTTPClientError) -> [UInt8]? {
            try await self.source.next()
        }

        package mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPClientError) -> [UInt8]? {
            try await self.source.next()
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self.source) }

    /// Reads the whole body, failing with `.bodyTooLarge` past `limit` bytes.
    package func collect(upTo limit: Int) async throws(HTTPClientError) -> [UInt8] {
        var result: [UInt8] = []
        while let chunk = try await self.source.next() {
            guard result.count + chunk.count <= limit else {
                self.source.cancel()
                throw HTTPClientError(.bodyTooLarge, "response body exceeds \(limit) bytes")
            }
            result += chunk
        }
        return result
    }

    /// Stops reading the body and releases the connection.
    package func cancel() { self.source.cancel() }
}

/// Every failure of an HTTP exchange.
package struct HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case invalidURL
        case network(NetworkError.Kind)
        case timedOut
        case invalidResponse
        case headersTooLarge
        case bodyTooLarge
        case truncatedBody
        /// A `gzip`/`deflate` body that is corrupt or cut inside its compressed stream.
        case invalidContentEncoding
        /// A compressed body that inflates past the decoder's limit (a decompression bomb).
        case decompressedBodyTooLarge
        case tooManyRedirects
        case cancelled
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package init(_ error: NetworkError) {
        self.kind = .network(error.kind)
        self.message = error.message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
