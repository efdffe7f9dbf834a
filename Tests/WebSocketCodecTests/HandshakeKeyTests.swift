import Testing
import WebSocketCodec

@Suite struct HandshakeKeyTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func sha1KnownVectors() {
        // FIPS 180-2 appendix A examples.
        #expect(Self.hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Self.hex(SHA1.hash([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(
            Self.hex(SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(
            Self.hex(SHA1.hash(Array("The quick brown fox jumps over the lazy dog".utf8)))
                == "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12")
    }

    /// Lengths around the 55/56/64-byte padding boundaries, checked against Python's hashlib
    /// over the bytes `(i * 7) & 0xff`.
    @Test(arguments: [
        (55, "aecd1643c9903b9bae8cb94f53c50f8a4e18605b"), (56, "f5d65c621c02cc8e785159feff8088e3072da1bc"),
        (63, "4952f0fe097e4d6410ae9eab4855aa836caf3bff"), (64, "1e17ae1fc093e5daca033553c97a5192ca164486"),
        (65, "ac44f5dbe3e9b5d2733fc9537fcad715c3c20bc3"), (119, "b4a4e69060d0b1e7e8ebbf7041a4211c63438b57"),
        (120, "b651390c2996406336a3f6647e4b590c18cdd6f8"), (1000, "38f3aa587f4aa04965a359f9151092759b3a4c2a"),
    ])
    func sha1PaddingBoundaries(length: Int, digest: String) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
        #expect(Self.hex(SHA1.hash(bytes)) == digest)
        var incremental = SHA1()
        incremental.update(bytes.prefix(length / 3))
        incremental.update(bytes.dropFirst(length / 3))
        #expect(Self.hex(incremental.finalize()) == digest)
    }

    @Test func rfc6455AcceptExample() {
        // RFC 6455 §1.3.
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func keyIsBase64Of16Bytes() {
        let key = WebSocketHandshake.key(fromRandomBytes: Array("the sample nonce".utf8))
        #expect(key == "dGhlIHNhbXBsZSBub25jZQ==")
    }
}
