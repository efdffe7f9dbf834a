import Foundation
import Testing

@testable import RealtimeHTTP

/// The request-target of the request line (RFC 9112 §3.2.1, origin-form): the URL's path as
/// written (percent-encoding kept, `/` when empty) and its query.
@Suite struct HTTPRequestTargetTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/socket.io/?EIO=4&transport=polling&t=12", "/socket.io/?EIO=4&transport=polling&t=12"),
        ("http://example.com", "/"),
        ("http://example.com?x=1", "/?x=1"),
        ("https://example.com/a%20b/c?q=%41%2B&r", "/a%20b/c?q=%41%2B&r"),
        ("http://example.com/path/", "/path/"),
        ("http://example.com/p?", "/p?"),
        ("http://user:secret@example.com/p#fragment", "/p"),
    ])
    func originForm(_ url: String, _ target: String) throws {
        #expect(try #require(URL(string: url)).httpRequestTarget == target)
    }

    @Test func relativeURLsResolveAgainstTheirBase() throws {
        let base = try #require(URL(string: "http://example.com/dir/"))
        let url = try #require(URL(string: "file?x=1", relativeTo: base))
        #expect(url.httpRequestTarget == "/dir/file?x=1")
    }
}
