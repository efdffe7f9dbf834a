import RealtimeEncoding
import TestSupport
import Testing

/// `String(validatingUTF8Bytes:)` (``UTF8Validator``, then a copy, on every system) agrees
/// with the standard library's `String(validating:as:)` (which Linux always has) on every
/// input.
@Suite struct ValidatingUTF8Tests {
    @Test(arguments: [
        [UInt8](), Array("plain ascii".utf8), Array("héllo wörld 🎉".utf8),
        [0xC3], [0xC3, 0x28], [0xE2, 0x82], [0xF0, 0x9F, 0x8E], [0xED, 0xA0, 0x80],  // truncated, surrogate
        [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80],  // overlong, > U+10FFFF, stray
    ])
    func agreesWithTheStandardLibrary(bytes: [UInt8]) throws {
        let expected = try #require(Self.reference(bytes), "String(validating:as:) needs macOS 15 / iOS 18")
        #expect((String(validatingUTF8Bytes: bytes[...]) != nil) == (expected != nil))
        #expect(String(validatingUTF8Bytes: bytes[...]) == expected)
        #expect(String(validatingUTF8Bytes: Self.slice(of: bytes)) == expected)
    }

    @Test func agreesOnRandomBytes() throws {
        var random = SplitMix64(seed: 0x5EED)
        for length in 0..<2_000 {
            // Mostly bytes that start or continue multi-byte sequences.
            let bytes = (0..<(length % 9)).map { _ in UInt8.random(in: 0x70...0xFF, using: &random) }
            let expected = try #require(Self.reference(bytes), "String(validating:as:) needs macOS 15 / iOS 18")
            #expect((String(validatingUTF8Bytes: bytes[...]) != nil) == (expected != nil), "\(bytes)")
            #expect(String(validatingUTF8Bytes: Self.slice(of: bytes)) == expected, "\(bytes)")
        }
    }

    /// `bytes` as a slice in the middle of a larger array (as an HTTP field's value is), so the
    /// `ArraySlice` form reads from an offset.
    static func slice(of bytes: [UInt8]) -> ArraySlice<UInt8> {
        let whole = Array("a".utf8) + bytes + Array("b".utf8)
        return whole[1..<(1 + bytes.count)]
    }

    /// The standard library's answer, where the OS has it (`nil` before macOS 15 / iOS 18).
    static func reference(_ bytes: [UInt8]) -> String?? {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return nil }
        return .some(String(validating: bytes, as: UTF8.self))
    }
}
