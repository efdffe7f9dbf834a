import Foundation
import HTTP1Codec
import Testing

@testable import RealtimeHTTP

@Suite struct HTTPRedirectPolicyTests {
    func request(_ method: String, body: [UInt8]? = Array("data".utf8)) -> HTTPClientRequest {
        HTTPClientRequest(
            method: method, url: URL(string: "http://a.test:8080/start/here")!,
            headers: [
                "Authorization": "Bearer t", "Cookie": "c=1", "Content-Type": "text/plain",
                "X-Other": "kept",
            ],
            body: body, maxRedirects: 5)
    }

    @Test(arguments: [
        (301, "POST", "GET"), (302, "POST", "GET"), (303, "POST", "GET"), (303, "PUT", "GET"),
        (303, "HEAD", "HEAD"), (301, "PUT", "PUT"), (307, "POST", "POST"), (308, "PUT", "PUT"),
    ])
    func methodRewriting(status: Int, method: String, expected: String) throws {
        let next = try #require(
            HTTPRedirectPolicy.redirectedRequest(
                from: self.request(method), status: status,
                location: "/next"))
        #expect(next.method == expected)
        let keepsBody = expected == method
        #expect((next.body != nil) == keepsBody)
        #expect(next.headers.contains(name: "Content-Type") == keepsBody)
    }

    @Test func resolvesRelativeLocationsAndKeepsCredentialsOnTheSameOrigin() throws {
        let next = try #require(
            HTTPRedirectPolicy.redirectedRequest(
                from: self.request("GET"), status: 302,
                location: "../other?x=1"))
        #expect(next.url.absoluteString == "http://a.test:8080/other?x=1")
        #expect(next.headers.first(name: "Authorization") == "Bearer t")
        #expect(next.headers.first(name: "Cookie") == "c=1")
    }

    @Test(arguments: ["http://b.test:8080/x", "http://a.test:8081/x", "https://a.test:8080/x"])
    func dropsCredentialsAcrossOrigins(_ location: String) throws {
        let next = try #require(
            HTTPRedirectPolicy.redirectedRequest(
                from: self.request("GET"), status: 307,
                location: location))
        #expect(next.url.absoluteString == location)
        #expect(next.headers.first(name: "Authorization") == nil)
        #expect(next.headers.first(name: "Cookie") == nil)
        #expect(next.headers.first(name: "X-Other") == "kept")
    }

    @Test func refusesWhatCannotBeFollowed() {
        #expect(HTTPRedirectPolicy.redirectedRequest(from: self.request("GET"), status: 302, location: nil) == nil)
        #expect(HTTPRedirectPolicy.redirectedRequest(from: self.request("GET"), status: 300, location: "/x") == nil)
        #expect(HTTPRedirectPolicy.redirectedRequest(from: self.request("GET"), status: 304, location: "/x") == nil)
        #expect(
            HTTPRedirectPolicy.redirectedRequest(
                from: self.request("GET"), status: 302,
                location: "ftp://a.test/x") == nil)
    }
}
