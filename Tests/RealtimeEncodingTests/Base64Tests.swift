import RealtimeEncoding
import TestSupport
import Testing

/// The package's one base64 (RFC 4648 §4): Engine.IO's `b` records, the WebSocket handshake's
/// key and accept values, `Proxy-Authorization: Basic`.
@Suite struct Base64Tests {
    @Test func base64RoundTripsEveryLength() throws {
        var generator = SplitMix64(seed: 7)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let text = Base64.encodedString(bytes)
            #expect(text.utf8.count == (length + 2) / 3 * 4)
            #expect(Base64.decode(text) == bytes)
            // Unpadded input is accepted too.
            let unpadded = String(text.prefix { $0 != "=" })
            #expect(Base64.decode(unpadded) == bytes)
        }
        #expect(Base64.encodedString([1, 2, 3, 4]) == "AQIDBA==")
        #expect(Base64.encodedString(Array("Man".utf8)) == "TWFu")
    }

    /// RFC 4648 §10's test vectors.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfcVectors(_ text: String, _ encoded: String) {
        #expect(Base64.encodedString(Array(text.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(text.utf8))
    }

    @Test(arguments: ["A", "A===", "AB=C", "AB!=", "ABC==", "AB==AB==", "AR=="])
    func rejectsMalformedText(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
