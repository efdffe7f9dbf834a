package import Foundation
package import RealtimeTime

/// One HTTP request.
package struct HTTPClientRequest: Sendable {
    package var method: String
    package var url: URL {
        // A target read from an earlier URL would name the wrong resource.
        didSet { self.target = nil }
    }
    /// The request target in origin form (RFC 9112 §3.2.1: the percent-encoded path and query),
    /// when the caller built ``url`` from it as text (the Engine.IO polling driver, for every
    /// request): the native client writes it as it is instead of reading it back out of the
    /// URL. `nil` (the default, and after ``url`` changes): read from ``url``.
    package var target: String?
    package var headers: HTTPHeaders
    package var body: [UInt8]?
    /// Idle timeout: no progress (connect, headers or body bytes) for this long fails the
    /// request with `.timedOut`. It never caps how long a healthy stream may live.
    package var idleTimeout: TimeAmount
    /// Redirects followed (301, 302, 303, 307, 308) before `.tooManyRedirects`; 0 = none.
    package var maxRedirects: Int
    /// TLS settings for `https` URLs (verification on by default).
    package var tls: TLSConfiguration
    /// The proxy to tunnel through; direct by default. The native client tunnels every scheme;
    /// `URLSessionHTTPTransport` maps it to `connectionProxyDictionary` (see there).
    package var proxy: ProxyConfiguration = .direct

    package init(
        method: String = "GET",
        url: URL,
        headers: HTTPHeaders = [:],
        body: [UInt8]? = nil,
        idleTimeout: TimeAmount = .seconds(60),
        maxRedirects: Int = 0,
        tls: TLSConfiguration = TLSConfiguration()
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.idleTimeout = idleTimeout
        self.maxRedirects = maxRedirects
        self.tls = tls
    }
}
