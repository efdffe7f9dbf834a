// Fuzz target: HTTPCookie.parse(setCookie:requestURL:now:), the Set-Cookie parser (RFC 6265
// §5.2, §5.3, with the §5.1.1 cookie-date algorithm), compiled from Sources/RealtimeHTTP.
//
// The first byte picks the request URL (or, with its top bit set, takes it from the input's
// first line); the rest is the header value.
//
// Properties: no trap on any value or date; an accepted cookie has a non-empty name, at most
// 4096 bytes of name and value, a path starting with `/`, a domain that is the request host
// (host-only) or one the host domain-matches and that is not a bare top-level label; a cookie
// that is not expired matches a request to the host that set it at its own path over https.
import Foundation

let urls = [
    "http://example.com/", "https://sub.example.com/docs/page", "http://localhost:3000/socket.io/?EIO=4&transport=polling",
    "https://127.0.0.1/a/b", "http://[::1]:8080/x", "https://xn--bcher-kva.example/path/", "https://a.b.c.example.org",
    "http://EXAMPLE.com./Mixed/Case",
]
let now = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSetCookie(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    var bytes = input.rest()
    let url: URL
    if choice & 0x80 != 0 {
        let lineEnd = bytes.firstIndex(of: 0x0A) ?? bytes.count
        guard let parsed = URL(string: String(decoding: bytes[..<lineEnd], as: UTF8.self)) else { return 0 }
        url = parsed
        bytes = Array(bytes[min(bytes.count, lineEnd + 1)...])
    } else {
        url = URL(string: urls[Int(choice) % urls.count])!
    }
    let header = String(decoding: bytes, as: UTF8.self)
    guard let cookie = HTTPCookie.parse(setCookie: header, requestURL: url, now: now) else { return 0 }

    require(!cookie.name.isEmpty, "empty cookie name")
    require(cookie.name.utf8.count + cookie.value.utf8.count <= HTTPCookie.maxNameValueBytes, "name and value too long")
    require(cookie.path.hasPrefix("/"), "path \(cookie.path) does not start with /")
    let host = HTTPCookie.canonicalDomain(url.host ?? "")
    if cookie.isHostOnly {
        require(cookie.domain == host, "host-only cookie for \(cookie.domain) set by \(host)")
    } else {
        require(HTTPCookie.domainMatches(host: host, domain: cookie.domain), "domain \(cookie.domain) set by \(host)")
        require(cookie.domain.contains(".") || cookie.domain == host, "top-level domain \(cookie.domain) accepted")
    }
    if let expires = cookie.expires, expires > now {
        require(cookie.matches(host: host, path: cookie.path, isSecureScheme: true, now: now),
                "a fresh cookie does not match its own host and path")
    }
    if cookie.expires == nil {
        require(cookie.matches(host: host, path: cookie.path, isSecureScheme: true, now: now),
                "a session cookie does not match its own host and path")
    }
    return 0
}
