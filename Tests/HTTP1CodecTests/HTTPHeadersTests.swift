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

    /// Names are tokens: only ASCII letters fold; digits and punctuation match exactly, and
    /// a name of another length never matches.
    @Test func namesFoldASCIILettersOnly() {
        let headers: HTTPHeaders = ["X-Rate-Limit_1": "a", "Sec-WebSocket-Accept": "b"]
        #expect(headers.first(name: "x-rate-limit_1") == "a")
        #expect(headers.first(name: "X-RATE-LIMIT_1") == "a")
        #expect(headers.first(name: "x-rate-limit-1") == nil)
        #expect(headers.first(name: "X-Rate-Limit_2") == nil)
        #expect(headers.first(name: "X-Rate-Limit") == nil)
        #expect(headers.first(name: "sec-websocket-accept") == "b")
        #expect(headers.first(name: "sec-websocket-accepT ") == nil)
        // `@` (0x40) and `[` (0x5B) sit next to the letters: they are not folded onto them.
        let edges: HTTPHeaders = ["A@": "x"]
        #expect(edges.first(name: "a@") == "x")
        #expect(edges.first(name: "a`") == nil)
        #expect(edges.first(name: "A[") == nil)
    }

    /// Against a reference fold on every pair of names of up to two characters from ASCII
    /// letters, digits, punctuation next to the letters and two non-ASCII characters (never
    /// folded: `É` is not `é`).
    @Test func namesEqualAgreesWithAnASCIIFoldOnEveryShortName() {
        let alphabet: [Character] = Array("aAzZmM09-_@`[{éÉ")
        var names = [""]
        for first in alphabet {
            names.append(String(first))
            for second in alphabet { names.append(String([first, second])) }
        }
        let folded = names.map { $0.utf8.map(HTTPHeaders.asciiLowercased) }
        var mismatches: [String] = []
        var equalPairs = 0
        for (left, leftFolded) in zip(names, folded) {
            for (right, rightFolded) in zip(names, folded) {
                let expected = leftFolded == rightFolded
                if expected { equalPairs += 1 }
                if HTTPHeaders.namesEqual(left, right) != expected { mismatches.append("\(left) \(right)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        // Each two-letter name of `aAzZmM` matches its case variants: more pairs than names.
        #expect(equalPairs > names.count)
    }

    @Test func replaceOrAddRemovesEveryOldValue() {
        var headers: HTTPHeaders = ["Accept": "a", "accept": "b", "Host": "h"]
        headers.replaceOrAdd(name: "ACCEPT", value: "c")
        #expect(headers.values(name: "Accept") == ["c"])
        #expect(headers.map(\.name) == ["Host", "ACCEPT"])
    }
}
