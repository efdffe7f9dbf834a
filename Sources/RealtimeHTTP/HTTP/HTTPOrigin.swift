package import Foundation
import RealtimeIO
package import RealtimeTransport

/// Where a request goes: scheme, host, port, TLS settings and proxy. Connections are pooled
/// per origin, so a connection is only reused for the same server with the same TLS settings
/// through the same proxy.
package struct HTTPOrigin: Sendable, Hashable, CustomStringConvertible {
    package var isSecure: Bool
    package var host: String
    package var port: UInt16
    package var tls: TLSConfiguration?
    /// The proxy the connection tunnels through (`nil`: direct).
    package var proxy: ProxyServer? = nil

    package init(isSecure: Bool, host: String, port: UInt16, tls: TLSConfiguration?) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// The origin of an `http`/`https` (or `ws`/`wss`) URL.
    /// - Throws: `.invalidURL` for another scheme, a missing host or an invalid port.
    package init(url: URL, tls: TLSConfiguration) throws(HTTPClientError) {
        guard let scheme = url.scheme?.lowercased() else {
            throw HTTPClientError(.invalidURL, "the URL has no scheme")
        }
        let isSecure: Bool
        switch scheme {
        case "http", "ws": isSecure = false
        case "https", "wss": isSecure = true
        default: throw HTTPClientError(.invalidURL, "unsupported URL scheme \(scheme)")
        }
        guard var host = url.host, !host.isEmpty else {
            throw HTTPClientError(.invalidURL, "the URL has no host")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? (isSecure ? 443 : 80)
        guard let port = UInt16(exactly: port), port > 0 else {
            throw HTTPClientError(.invalidURL, "invalid port in the URL")
        }
        self.init(isSecure: isSecure, host: host, port: port, tls: isSecure ? tls : nil)
    }

    package var endpoint: Endpoint { Endpoint(host: self.host, port: self.port, tls: self.tls, proxy: self.proxy) }

    /// The `Host` field value: the host, bracketed when IPv6, with the port unless default
    /// (RFC 9110 §7.2).
    package var hostHeaderValue: String {
        // `utf8.contains`, not `contains(":")`: with Foundation imported that resolves to
        // `range(of:)` through NSString, 3% of a polling burst's CPU (once per request).
        let host = self.host.utf8.contains(UInt8(ascii: ":")) ? "[\(self.host)]" : self.host
        let defaultPort: UInt16 = self.isSecure ? 443 : 80
        return self.port == defaultPort ? host : "\(host):\(self.port)"
    }

    /// Same scheme, host and port (RFC 6454), ignoring TLS settings.
    package func isSameOrigin(as other: HTTPOrigin) -> Bool {
        self.isSecure == other.isSecure && self.host.lowercased() == other.host.lowercased() && self.port == other.port
    }

    package var description: String { "\(self.isSecure ? "https" : "http")://\(self.hostHeaderValue)" }
}

extension URL {
    /// The request target in origin form: percent-encoded path (at least `/`) and query
    /// (RFC 9112 §3.2.1).
    package var httpRequestTarget: String {
        // Read from the URL's own parse (no `URLComponents` re-parse per request).
        let url = self.absoluteURL
        let path: String
        let query: String?
        if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) {
            path = url.path(percentEncoded: true)
            query = url.query(percentEncoded: true)
        } else {
            // Before iOS 16 `URL` hands out its path and query decoded only.
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            path = components?.percentEncodedPath ?? ""
            query = components?.percentEncodedQuery
        }
        var target = path.isEmpty ? "/" : path
        if let query { target += "?" + query }
        return target
    }
}
