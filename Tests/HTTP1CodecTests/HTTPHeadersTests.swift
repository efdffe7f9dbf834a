import Testing

@testable import HTTP1Codec

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        var headers: HTTPHeaders = ["Set-Cookie": "a=1", "Content-Type": "text/plain"]
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers.first(name: "SET-COOKIE") == "a=1")
        #expect(headers.values(name: "Set-Cookie") == ["a=1", "b=2"])
        #expect(headers.first(name: "content-type") == "text/plain")
        #expect(headers.first(name: "Content-Length") == nil)
        #expect(headers.count == 3)
    }

    @Test func replaceOrAddRemovesEveryOldValue() {
        var headers: HTTPHeaders = ["Accept": "a", "accept": "b", "Host": "h"]
        headers.replaceOrAdd(name: "ACCEPT", value: "c")
        #expect(headers.values(name: "Accept") == ["c"])
        #expect(headers.map(\.name) == ["Host", "ACCEPT"])
    }
}
