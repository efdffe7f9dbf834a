import RealtimeEncoding
import TestSupport
import Testing

/// The validator on text long enough for its sixteen-byte blocks: valid text of every
/// character length, then each byte replaced by the bytes that break a rule of RFC 3629 §4
/// (a stray or missing continuation byte, C0/C1, E0/ED/F0/F4 with a second byte out of range,
/// F5 to FF), truncations and random corruptions. Whole, split at every offset, and the offset
/// of the first ill-formed sequence agree with the standard library's decoder.
@Suite struct UTF8ValidatorBlockTests {
    /// The bytes that replace each position in turn.
    static let breakers: [UInt8] = [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]

    /// ASCII runs longer and shorter than a block, two-, three- and four-byte characters, the
    /// scalars at the edges of each length and around the surrogates.
    static let text: [UInt8] =
        Array(
            "{\"text\":\"déjà vu à l'été, Grüße\",\"cjk\":\"東京都の天気\",\"emoji\":\"👍🏽❤️\"}".utf8)
        + Array("\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF} plain ASCII for a whole block.".utf8)

    @Test func validTextIsValidWholeAndSplit() {
        Self.expectAgreement(Self.text)
        for start in 0..<20 {
            Self.expectAgreement(Array(Self.text[start...]))
        }
    }

    @Test(arguments: breakers)
    func everyPositionBroken(by byte: UInt8) {
        for position in Self.text.indices {
            var bytes = Self.text
            bytes[position] = byte
            Self.expectAgreement(bytes)
        }
    }

    @Test func everyTruncation() {
        for length in 0...Self.text.count {
            Self.expectAgreement(Array(Self.text[..<length]))
        }
    }

    @Test func randomTextWithRandomCorruption() {
        var random = SplitMix64(seed: 0xB10C)
        for _ in 0..<1_500 {
            var bytes: [UInt8] = []
            let length = Int(random.next() % 90)
            while bytes.count < length {
                bytes += Array(String(Self.randomScalar(&random)).utf8)
            }
            switch random.next() % 4 {
            case 0:
                break
            case 1:
                if !bytes.isEmpty { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            case 2:
                if !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] = Self.breakers[Int(random.next() % UInt64(Self.breakers.count))]
                }
            default:
                bytes.removeLast(Int(random.next() % UInt64(min(bytes.count, 3) + 1)))
            }
            Self.expectAgreement(bytes)
        }
    }

    // MARK: Helpers

    /// Whole (`isValid`, `firstInvalidOffset(in:)`) and split at every offset, against the
    /// standard library.
    static func expectAgreement(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = Self.referenceInvalidOffset(bytes)
        #expect(UTF8Validator.isValid(bytes) == (expected == nil), "\(bytes)", sourceLocation: sourceLocation)
        let offset = bytes.withUnsafeBufferPointer { UTF8Validator.firstInvalidOffset(in: $0) }
        #expect(offset == expected, "\(bytes)", sourceLocation: sourceLocation)
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let valid =
                validator.validate(Array(bytes[..<split])) && validator.validate(Array(bytes[split...]))
                && validator.isAtCharacterBoundary
            #expect(valid == (expected == nil), "\(bytes) split at \(split)", sourceLocation: sourceLocation)
        }
    }

    /// Where the standard library's decoder meets its first error: the first byte after the
    /// scalars it decoded, or `nil` when there is none.
    static func referenceInvalidOffset(_ bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// A scalar of each UTF-8 length about as often, edges included.
    static func randomScalar(_ random: inout SplitMix64) -> Unicode.Scalar {
        let edges: [UInt32] = [0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF]
        let value: UInt32
        switch random.next() % 6 {
        case 0, 1: value = UInt32(0x20 + random.next() % 0x5F)
        case 2: value = UInt32(0x80 + random.next() % (0x800 - 0x80))
        case 3: value = UInt32(0x800 + random.next() % (0x10000 - 0x800))
        case 4: value = UInt32(0x10000 + random.next() % (0x110000 - 0x10000))
        default: value = edges[Int(random.next() % UInt64(edges.count))]
        }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
