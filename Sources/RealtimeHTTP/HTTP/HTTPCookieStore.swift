package import Foundation
import HTTP1Codec
import RealtimeSync
package import RealtimeTransport

/// The cookies of one ``HTTPClient`` (RFC 6265): filled from `Set-Cookie` response fields,
/// sent back in a `Cookie` field on matching requests.
///
/// Also the place where higher layers (Socket.IO's `extraHeaders`/cookie options) read and add
/// cookies.
///
/// ```swift
/// let store = client.cookieStore
/// store.add(HTTPCookie(name: "session", value: token, domain: "example.com"))
/// let header = store.cookieHeaderValue(for: url)   // "session=..."
/// ```
///
/// The store is bounded: at most ``maxCookiesPerDomain`` per domain and ``maxCookies`` in
/// all; past that the oldest cookies are evicted.
///
/// - Important: Thread-safe (one lock). It never logs cookie values.
package final class HTTPCookieStore: Sendable {
    package static let maxCookies = 3000
    package static let maxCookiesPerDomain = 50

    private let cookies = LockedValue<[HTTPCookie]>([])

    package init() {}

    /// Every stored cookie, expired ones included until the next store operation.
    package var allCookies: [HTTPCookie] { self.cookies.withLock { $0 } }

    /// Stores every `Set-Cookie` field of a response to `url`.
    package func storeCookies(from headers: HTTPHeaders, for url: URL, now: Date = Date()) {
        let values = headers.values(name: "Set-Cookie")
        guard !values.isEmpty else { return }
        let parsed = values.compactMap { HTTPCookie.parse(setCookie: $0, requestURL: url, now: now) }
        self.cookies.withLock { cookies in
            for cookie in parsed { Self.insert(cookie, into: &cookies, now: now) }
        }
    }

    /// Adds (or replaces: same name, domain and path) a cookie. An expired cookie deletes
    /// the stored one.
    package func add(_ cookie: HTTPCookie, now: Date = Date()) {
        self.cookies.withLock { Self.insert(cookie, into: &$0, now: now) }
    }

    package func remove(name: String, domain: String, path: String = "/") {
        let domain = HTTPCookie.canonicalDomain(domain)
        self.cookies.withLock { $0.removeAll { $0.name == name && $0.domain == domain && $0.path == path } }
    }

    package func removeAll() {
        self.cookies.withLock { $0.removeAll() }
    }

    /// The cookies a request to `url` carries, most specific path first, then oldest first
    /// (RFC 6265 §5.4).
    package func cookies(for url: URL, now: Date = Date()) -> [HTTPCookie] {
        // Most requests go to servers that set no cookie: skip parsing the URL for them.
        guard !self.cookies.withLock({ $0.isEmpty }), let host = url.host else { return [] }
        let scheme = url.scheme?.lowercased()
        let isSecure = scheme == "https" || scheme == "wss"
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? "/"
        let requestPath = path.isEmpty ? "/" : path
        let matching = self.cookies.withLock { cookies -> [HTTPCookie] in
            cookies.removeAll { $0.isExpired(at: now) }
            return cookies.filter { $0.matches(host: host, path: requestPath, isSecureScheme: isSecure, now: now) }
        }
        return matching.sorted {
            $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.creationTime < $1.creationTime
        }
    }

    /// The `Cookie` field value for a request to `url`, or `nil` when no cookie matches.
    package func cookieHeaderValue(for url: URL, now: Date = Date()) -> String? {
        let matching = self.cookies(for: url, now: now)
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    private static func insert(_ cookie: HTTPCookie, into cookies: inout [HTTPCookie], now: Date) {
        var cookie = cookie
        if let index = cookies.firstIndex(where: {
            $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path
        }) {
            cookie.creationTime = cookies[index].creationTime
            cookies.remove(at: index)
        }
        guard !cookie.isExpired(at: now) else { return }
        cookies.append(cookie)
        let sameDomain = cookies.indices.filter { cookies[$0].domain == cookie.domain }
        if sameDomain.count > Self.maxCookiesPerDomain, let oldest = sameDomain.first {
            cookies.remove(at: oldest)
        }
        if cookies.count > Self.maxCookies {
            cookies.removeAll { $0.isExpired(at: now) }
            if cookies.count > Self.maxCookies { cookies.removeFirst(cookies.count - Self.maxCookies) }
        }
    }
}
