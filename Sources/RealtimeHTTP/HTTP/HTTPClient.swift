import Foundation
package import HTTP1Codec
package import RealtimeIO
package import RealtimeTime

/// The native HTTP/1.1 client over ``RealtimeIO`` byte streams (RFC 9110, RFC 9112).
///
/// ```swift
/// let client = HTTPClient()
/// let response = try await client.execute(HTTPClientRequest(url: url, maxRedirects: 5))
/// for try await chunk in response.body { consume(chunk) }
/// ```
///
/// - Keep-alive: a connection whose response allowed reuse goes back to a bounded pool of
///   idle connections per ``HTTPOrigin`` (scheme, host, port, TLS settings) and serves the
///   next request to that origin. A request that fails on a reused connection before any
///   response byte arrived (the server closed it while idle) is retried once on a new one.
/// - Streaming: ``HTTPClientResponse/body`` reads the socket only while pulled.
/// - Idle timeout: ``HTTPClientRequest/idleTimeout`` bounds each wait on the network
///   (connect, write, read), never the life of a healthy stream.
/// - Cookies: ``cookieStore`` takes `Set-Cookie` fields and adds a `Cookie` field to
///   matching requests (RFC 6265).
/// - Redirects: up to ``HTTPClientRequest/maxRedirects`` (see ``HTTPRedirectPolicy``); with
///   0 the redirect response itself is returned.
/// - Compression: `Accept-Encoding: gzip, deflate` is sent unless the request sets its own
///   `Accept-Encoding`; a `gzip` or `deflate` response body is then inflated chunk by chunk as
///   it is pulled (bounded by ``Configuration/decompressionLimit``). A request with its own
///   `Accept-Encoding` gets the body untouched.
/// - Proxies: ``HTTPClientRequest/proxy`` tunnels the connection (HTTP CONNECT or SOCKS5);
///   pooled connections are keyed by origin and proxy.
/// - Cancellation: cancelling the calling task closes the connection at once and throws
///   `.cancelled`.
/// - Event loops: each new connection lives on the next loop of the client's group (or on
///   the one loop it was given), with its idle timer there.
///
/// - Important: Thread-safe; many requests may run concurrently, each on its own connection.
///   The client does not pipeline.
package final class HTTPClient: HTTPTransport {
    /// Opens a byte stream to an endpoint on a loop; ``NetworkConnector/connect(to:timeout:on:)``
    /// in production, anything that speaks ``ByteStream`` in tests.
    package typealias Connector = @Sendable (Endpoint, TimeAmount, EventLoop) async throws(NetworkError) -> any ByteStream

    /// Pool bounds and buffer sizes.
    package struct Configuration: Sendable {
        /// Idle keep-alive connections kept per origin.
        package var maxIdleConnectionsPerOrigin: Int = 8
        /// Idle keep-alive connections kept in all.
        package var maxIdleConnections: Int = 64
        /// How long an idle connection is kept before it is closed instead of reused.
        package var idleConnectionLifetime: TimeAmount = .seconds(55)
        /// The most bytes one socket read asks for (and so the most a body holds unpulled):
        /// the receive buffer's size (see `ReadBuffer.size` for why 256 KiB).
        package var readSize: Int = 256 * 1024
        /// Bounds on response heads and chunked framing.
        package var parserLimits = HTTPParserLimits()
        /// Body bytes of a redirect response read to keep its connection; past that the
        /// connection is closed instead.
        package var maxRedirectBodyDrain: Int = 64 * 1024
        /// Send `Accept-Encoding: gzip, deflate` (unless the request sets its own field) and
        /// inflate such responses as they stream.
        package var decompressesResponses = true
        /// How far a compressed body may inflate (see ``HTTPContentDecoder/Limit``).
        package var decompressionLimit = HTTPContentDecoder.Limit()

        package init() {}
    }

    package let configuration: Configuration
    /// The client's cookies; read and add to it freely.
    package let cookieStore: HTTPCookieStore
    let pool: HTTPConnectionPool
    let connector: Connector
    /// Where each new connection lives: the next loop of a group, or always one loop.
    let eventLoops: any EventLoopProvider

    /// A client over the native transport.
    ///
    /// - Parameters:
    ///   - configuration: pool bounds and buffer sizes.
    ///   - cookieStore: the cookies to send and fill (shared with other clients if you wish).
    ///   - eventLoops: the group whose loops new connections take in turn, or one loop for all
    ///     of them (the process default group unless given).
    package convenience init(
        configuration: Configuration = Configuration(), cookieStore: HTTPCookieStore = HTTPCookieStore(),
        eventLoops: any EventLoopProvider = EventLoopGroup.shared
    ) {
        self.init(
            configuration: configuration, cookieStore: cookieStore, eventLoops: eventLoops,
            connector: { endpoint, timeout, loop throws(NetworkError) in
                try await NetworkConnector.connect(to: endpoint, timeout: timeout, on: loop)
            })
    }

    /// A client whose connections `connector` opens (tests), each given the loop it should
    /// live on.
    package init(
        configuration: Configuration = Configuration(), cookieStore: HTTPCookieStore = HTTPCookieStore(),
        eventLoops: any EventLoopProvider, connector: @escaping Connector
    ) {
        self.configuration = configuration
        self.cookieStore = cookieStore
        self.eventLoops = eventLoops
        self.connector = connector
        self.pool = HTTPConnectionPool(
            maxIdlePerOrigin: configuration.maxIdleConnectionsPerOrigin,
            maxIdleTotal: configuration.maxIdleConnections,
            idleLifetime: configuration.idleConnectionLifetime)
    }

    deinit {
        self.pool.shutdown()
    }

    /// Idle keep-alive connections currently pooled.
    package var idleConnectionCount: Int { self.pool.idleCount }

    /// Closes every idle pooled connection (connections in use are not affected).
    package func closeIdleConnections() {
        self.pool.closeIdleConnections()
    }
}
