import Foundation
import HTTP1Codec
import Testing

@testable import RealtimeHTTP

@Suite struct HTTPCookieStoreTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func url(_ string: String) -> URL { URL(string: string)! }

    @Test func parsesNameValueAndAttributes() throws {
        let cookie = try #require(
            HTTPCookie.parse(
                setCookie: "sid = a=b ; Path=/api; Domain=.Example.com; Secure; HttpOnly; Max-Age=60",
                requestURL: self.url("https://www.example.com/login"), now: self.now))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a=b")
        #expect(cookie.path == "/api")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isHostOnly == false)
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.expires == self.now.addingTimeInterval(60))
    }

    @Test func defaultsFollowTheRequest() throws {
        let cookie = try #require(
            HTTPCookie.parse(
                setCookie: "a=1", requestURL: self.url("http://h.test/x/y/z?q"),
                now: self.now))
        #expect(cookie.domain == "h.test")
        #expect(cookie.isHostOnly)
        #expect(cookie.path == "/x/y")
        #expect(cookie.expires == nil)
    }

    @Test func rejectsForeignDomainsAndNamelessCookies() {
        let url = self.url("http://www.example.com/")
        #expect(HTTPCookie.parse(setCookie: "a=1; Domain=other.com", requestURL: url) == nil)
        #expect(HTTPCookie.parse(setCookie: "a=1; Domain=com", requestURL: url) == nil)
        #expect(HTTPCookie.parse(setCookie: "novalue", requestURL: url) == nil)
        #expect(HTTPCookie.parse(setCookie: "=1", requestURL: url) == nil)
        #expect(HTTPCookie.parse(setCookie: "a=1; Domain=2.3.4", requestURL: self.url("http://1.2.3.4/")) == nil)
        #expect(HTTPCookie.parse(setCookie: "a=1; Domain=1.2.3.4", requestURL: self.url("http://1.2.3.4/")) != nil)
    }

    @Test(arguments: [
        ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480.0),
        ("Wednesday, 21-Oct-15 07:28:00 GMT", 1_445_412_480.0),
        ("Wed Oct 21 07:28:00 2015", 1_445_412_480.0),
        ("21 oct 2015 07:28:00", 1_445_412_480.0),
        ("Thu, 29 Feb 2024 23:59:59 GMT", 1_709_251_199.0),
    ])
    func parsesCookieDates(_ text: String, _ expected: TimeInterval) {
        #expect(HTTPCookieDateParser.parse(text[...]) == Date(timeIntervalSince1970: expected))
    }

    @Test(arguments: [
        "Fri, 30 Feb 2024 00:00:00 GMT", "Wed, 21 Oct 2015 25:00:00 GMT", "Wed, 21 Oct 1500 07:28:00 GMT",
        "no date here", "",
    ])
    func rejectsInvalidCookieDates(_ text: String) {
        #expect(HTTPCookieDateParser.parse(text[...]) == nil)
    }

    @Test func maxAgeWinsOverExpires() throws {
        let cookie = try #require(
            HTTPCookie.parse(
                setCookie: "a=1; Max-Age=10; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
                requestURL: self.url("http://h.test/"), now: self.now))
        #expect(cookie.expires == self.now.addingTimeInterval(10))
    }

    @Test func sendsMatchingCookiesMostSpecificPathFirst() {
        let store = HTTPCookieStore()
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "root=1; Path=/")
        headers.add(name: "Set-Cookie", value: "deep=2; Path=/a/b")
        headers.add(name: "Set-Cookie", value: "secure=3; Secure; Path=/")
        headers.add(name: "Set-Cookie", value: "wide=4; Domain=example.com; Path=/")
        headers.add(name: "Set-Cookie", value: "defaultPath=5")
        store.storeCookies(from: headers, for: self.url("https://www.example.com/a/b/c"), now: self.now)

        #expect(
            store.cookieHeaderValue(for: self.url("https://www.example.com/a/b/c"), now: self.now)
                == "deep=2; defaultPath=5; root=1; secure=3; wide=4")
        #expect(
            store.cookieHeaderValue(for: self.url("http://www.example.com/a/bc"), now: self.now)
                == "root=1; wide=4")
        #expect(store.cookieHeaderValue(for: self.url("http://api.example.com/"), now: self.now) == "wide=4")
        #expect(store.cookieHeaderValue(for: self.url("http://example.org/"), now: self.now) == nil)
    }

    @Test func replacesAndExpiresCookies() {
        let store = HTTPCookieStore()
        let url = self.url("http://h.test/")
        store.storeCookies(from: ["Set-Cookie": "a=1"], for: url, now: self.now)
        store.storeCookies(from: ["Set-Cookie": "a=2"], for: url, now: self.now)
        #expect(store.cookieHeaderValue(for: url, now: self.now) == "a=2")
        store.storeCookies(from: ["Set-Cookie": "a=3; Max-Age=0"], for: url, now: self.now)
        #expect(store.cookieHeaderValue(for: url, now: self.now) == nil)
        store.storeCookies(from: ["Set-Cookie": "b=1; Max-Age=5"], for: url, now: self.now)
        #expect(store.cookieHeaderValue(for: url, now: self.now.addingTimeInterval(4)) == "b=1")
        #expect(store.cookieHeaderValue(for: url, now: self.now.addingTimeInterval(6)) == nil)
    }

    @Test func cookiesAddedByHandAreSent() {
        let store = HTTPCookieStore()
        store.add(HTTPCookie(name: "io", value: "token", domain: "h.test"), now: self.now)
        #expect(store.cookieHeaderValue(for: self.url("http://h.test/socket.io/?EIO=4"), now: self.now) == "io=token")
        store.remove(name: "io", domain: "h.test")
        #expect(store.allCookies.isEmpty)
    }

    @Test func storeIsBoundedPerDomain() {
        let store = HTTPCookieStore()
        let url = self.url("http://h.test/")
        for index in 0..<(HTTPCookieStore.maxCookiesPerDomain + 10) {
            store.storeCookies(from: ["Set-Cookie": "c\(index)=v"], for: url, now: self.now)
        }
        #expect(store.allCookies.count == HTTPCookieStore.maxCookiesPerDomain)
        #expect(store.allCookies.first?.name == "c10")
    }
}
