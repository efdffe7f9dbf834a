package import Foundation

/// One cookie as a user agent stores it (RFC 6265 §5.3).
package struct HTTPCookie: Sendable, Hashable {
    package var name: String
    package var value: String
    /// The canonical (lower-case, no leading dot) domain.
    package var domain: String
    /// `true` when the cookie had no `Domain` attribute: it goes back only to exactly
    /// ``domain``, not to its subdomains.
    package var isHostOnly: Bool
    package var path: String
    /// `nil` for a session cookie (no `Max-Age`/`Expires`): it lives as long as the store.
    package var expires: Date?
    /// Sent only over `https`.
    package var isSecure: Bool
    package var isHTTPOnly: Bool
    package var creationTime: Date

    package init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        expires: Date? = nil, isSecure: Bool = false, isHTTPOnly: Bool = false,
        creationTime: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = Self.canonicalDomain(domain)
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.creationTime = creationTime
    }

    /// Whether the cookie has expired at `now`.
    package func isExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// Whether a request to `host`, `path` over `isSecureScheme` carries this cookie
    /// (RFC 6265 §5.4 step 1).
    package func matches(host: String, path: String, isSecureScheme: Bool, now: Date) -> Bool {
        if self.isExpired(at: now) { return false }
        if self.isSecure && !isSecureScheme { return false }
        let host = Self.canonicalDomain(host)
        if self.isHostOnly {
            guard host == self.domain else { return false }
        } else {
            guard Self.domainMatches(host: host, domain: self.domain) else { return false }
        }
        return Self.pathMatches(requestPath: path, cookiePath: self.path)
    }

    static func canonicalDomain(_ domain: String) -> String {
        var result = domain.lowercased()
        while result.hasPrefix(".") { result.removeFirst() }
        if result.hasPrefix("[") && result.hasSuffix("]") { result = String(result.dropFirst().dropLast()) }
        return result
    }

    /// RFC 6265 §5.1.3.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        return !Self.isIPAddress(host)
    }

    /// RFC 6265 §5.1.4.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// RFC 6265 §5.1.4 default-path: the request path up to (not including) its last `/`.
    static func defaultPath(for requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let lastSlash = requestPath.lastIndex(of: "/"),
            lastSlash != requestPath.startIndex
        else { return "/" }
        return String(requestPath[..<lastSlash])
    }

    static func isIPAddress(_ host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
    }
}
