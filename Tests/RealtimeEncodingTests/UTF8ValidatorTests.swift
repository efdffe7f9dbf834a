import RealtimeEncoding
import TestSupport
import Testing

/// The package's one UTF-8 validator: incremental (a WebSocket text message in pieces) and
/// whole (`firstInvalidOffset(in:)`, what the JSON and MessagePack parsers report).
@Suite struct UTF8ValidatorTests {
    static let valid: [[UInt8]] = [
        [],
        Array("Hello-µ@ßöäüàá-UTF-8!!".utf8),
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5],  // κόσμε
        [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],  // U+10000, U+10FFFF
        [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],  // around surrogates
        [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80],
    ]

    static let invalid: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF],  // lone continuation, overlong 2-byte
        [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80],  // overlong 3/4-byte
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],  // surrogates
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],  // above U+10FFFF
        [0xFE], [0xFF], [0xC2, 0x41], [0xE1, 0x80, 0x41],
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
    ]

    @Test(arguments: valid)
    func validWholeAndSplitAtEveryOffset(_ bytes: [UInt8]) {
        #expect(UTF8Validator.isValid(bytes))
        for offset in 0...bytes.count {
            var validator = UTF8Validator()
            #expect(Self.feed(&validator, Array(bytes[..<offset])))
            #expect(Self.feed(&validator, Array(bytes[offset...])))
            #expect(validator.isAtCharacterBoundary)
        }
        var validator = UTF8Validator()
        for byte in bytes { #expect(Self.feed(&validator, [byte])) }
        #expect(validator.isAtCharacterBoundary)
    }

    @Test(arguments: invalid)
    func invalidWholeAndSplitAtEveryOffset(_ bytes: [UInt8]) {
        #expect(!UTF8Validator.isValid(bytes))
        for offset in 0...bytes.count {
            var validator = UTF8Validator()
            let ok = validator.validate(Array(bytes[..<offset])) && validator.validate(Array(bytes[offset...]))
            #expect(!ok, "split at \(offset)")
        }
    }

    static func feed(_ validator: inout UTF8Validator, _ bytes: [UInt8]) -> Bool {
        validator.validate(bytes)
    }

    @Test func truncatedCharacterIsNotAtBoundary() {
        var validator = UTF8Validator()
        #expect(Self.feed(&validator, [0x41, 0xF0, 0x90, 0x80]))
        #expect(!validator.isAtCharacterBoundary)
        #expect(!UTF8Validator.isValid([0xE2, 0x82]))
    }

    @Test func failsFastOnInvalidPrefix() {
        // κόσμε followed by F4 90: no valid continuation exists, so the chunk ending in 0x90
        // must already fail, before the rest of the message arrives (Autobahn 6.4).
        var validator = UTF8Validator()
        #expect(Self.feed(&validator, [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xF4]))
        #expect(!Self.feed(&validator, [0x90]))
    }

    @Test func longAsciiThenInvalidByteAtEachPosition() {
        for position in 0..<40 {
            var bytes = [UInt8](repeating: 0x61, count: 40)
            bytes[position] = 0xFF
            #expect(!UTF8Validator.isValid(bytes), "position \(position)")
        }
    }

    // MARK: Whole buffers

    /// The offset is where the first ill-formed sequence starts: its lead byte, or the byte
    /// that starts none.
    @Test(arguments: [
        ([0x61, 0x80], 1), ([0x61, 0xC3, 0x28], 1), ([0xE2, 0x82], 0), ([0x61, 0x62, 0xE0, 0x80, 0x80], 2),
        ([0xF0, 0x9F, 0x8E, 0x41], 0), ([0x41, 0xED, 0xA0, 0x80], 1), ([0xC3, 0xA9, 0xF4, 0x90, 0x80, 0x80], 2),
        (Array("0123456789abcdef".utf8) + [0xFF], 16), ([0xC3, 0xA9] + Array("0123456789abcdef".utf8) + [0xC3], 18),
    ])
    func firstInvalidOffsetIsTheSequenceStart(_ bytes: [UInt8], _ offset: Int) {
        #expect(bytes.withUnsafeBufferPointer { UTF8Validator.firstInvalidOffset(in: $0) } == offset)
    }

    @Test(arguments: valid)
    func firstInvalidOffsetOfValidTextIsNil(_ bytes: [UInt8]) {
        #expect(bytes.withUnsafeBufferPointer { UTF8Validator.firstInvalidOffset(in: $0) } == nil)
    }

    /// Whole, byte by byte and split at every offset agree with the standard library's
    /// decoder on random bytes (mostly bytes that start or continue multi-byte sequences, with
    /// ASCII runs long enough for the word-at-a-time path).
    @Test func agreesWithTheStandardLibraryOnRandomBytes() {
        var random = SplitMix64(seed: 0x0DE_C0DE)
        for length in 0..<3_000 {
            let bytes = (0..<(length % 23)).map { _ in
                random.next() % 3 == 0 ? UInt8(ascii: "a") : UInt8.random(in: 0x70...0xFF, using: &random)
            }
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            var expected = true
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: break decoding
                case .error:
                    expected = false
                    break decoding
                }
            }
            #expect(UTF8Validator.isValid(bytes) == expected, "\(bytes)")
            #expect((bytes.withUnsafeBufferPointer { UTF8Validator.firstInvalidOffset(in: $0) } == nil) == expected, "\(bytes)")
            for offset in 0...bytes.count {
                var validator = UTF8Validator()
                let whole =
                    validator.validate(Array(bytes[..<offset])) && validator.validate(Array(bytes[offset...]))
                    && validator.isAtCharacterBoundary
                #expect(whole == expected, "\(bytes) split at \(offset)")
            }
        }
    }
}
