/// UTF-8 validation (RFC 3629 §4): the package's one validator, incremental for text that
/// arrives in pieces (a WebSocket text message, RFC 6455 §8.1) and one-shot for a whole
/// buffer (a JSON or MessagePack string, an HTTP field, an Engine.IO packet).
///
/// Carries the state of a partly received character from one ``validate(_:)-(UnsafeRawBufferPointer)``
/// call to the next, and fails on the first byte that cannot start or continue a valid
/// sequence, so an invalid prefix is caught in the piece that carries it, not at the end of
/// the text (what Autobahn's 6.x cases call "fail fast"). Overlong forms, surrogates
/// (U+D800–U+DFFF) and code points above U+10FFFF are rejected through the allowed range of
/// the second byte. ASCII runs are checked eight bytes at a time.
///
/// ```swift
/// var validator = UTF8Validator()
/// validator.validate([0xE2, 0x82])        // true: a character begun
/// validator.validate([0xAC])              // true: "€" complete
/// validator.isAtCharacterBoundary         // true
/// UTF8Validator.firstInvalidOffset(in: buffer)  // where the first ill-formed sequence starts
/// ```
package struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes the current character still needs.
    private var remaining: UInt8 = 0
    /// Allowed range of the next continuation byte.
    private var lowerBound: UInt8 = 0x80
    private var upperBound: UInt8 = 0xBF

    package init() {}

    /// Whether everything validated so far ends on a character boundary: required at the
    /// end of a text.
    package var isAtCharacterBoundary: Bool { self.remaining == 0 }

    package mutating func reset() {
        self = UTF8Validator()
    }

    /// Validates the next bytes of the text. Returns `false` at the first invalid byte; the
    /// validator is then meaningless until ``reset()``.
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        self.firstRejectedIndex(in: bytes) == nil
    }

    /// Validates the next bytes of the text.
    package mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { self.validate($0) }
    }

    /// The index in `bytes` of the first byte that cannot start or continue a valid sequence,
    /// or `nil` when every byte can.
    private mutating func firstRejectedIndex(in bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        var index = 0
        // A character begun in an earlier piece.
        while self.remaining > 0 {
            guard index < count else { return nil }
            guard self.accept(bytes[index]) else { return index }
            index += 1
        }
        switch Self.scan(bytes, from: index) {
        case .complete:
            return nil
        case .invalid(let start):
            // The byte that fails is in the sequence that starts here.
            index = start
        case .truncated(let start):
            index = start
        }
        // Byte by byte from the sequence that did not complete: the first byte it cannot take
        // is rejected, or the piece ends inside a character that may still complete.
        while index < count {
            guard self.accept(bytes[index]) else { return index }
            index += 1
        }
        return nil
    }

    /// Takes one byte into the state: the start or the continuation of a character.
    private mutating func accept(_ byte: UInt8) -> Bool {
        guard self.remaining == 0 else {
            guard byte >= self.lowerBound && byte <= self.upperBound else { return false }
            self.remaining -= 1
            self.lowerBound = 0x80
            self.upperBound = 0xBF
            return true
        }
        guard byte >= 0x80 else { return true }
        guard let sequence = Self.sequence(startingWith: byte) else { return false }
        self.remaining = sequence.length - 1
        self.lowerBound = sequence.lowerBound
        self.upperBound = sequence.upperBound
        return true
    }

    /// The length of the sequence a lead byte (0x80 or more) starts and the allowed range of
    /// its second byte (RFC 3629 §4's table); `nil` for a byte that starts none.
    @inline(__always)
    private static func sequence(startingWith lead: UInt8) -> (length: UInt8, lowerBound: UInt8, upperBound: UInt8)? {
        switch lead {
        case 0xC2...0xDF: return (2, 0x80, 0xBF)
        case 0xE0: return (3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: return (3, 0x80, 0xBF)
        case 0xED: return (3, 0x80, 0x9F)
        case 0xF0: return (4, 0x90, 0xBF)
        case 0xF1...0xF3: return (4, 0x80, 0xBF)
        case 0xF4: return (4, 0x80, 0x8F)
        default: return nil
        }
    }

    /// Where a scan of whole sequences stopped.
    private enum ScanEnd {
        /// Every sequence is complete and well-formed.
        case complete
        /// The sequence starting at this offset is ill-formed.
        case invalid(Int)
        /// The sequence starting at this offset runs past the end (its bytes are not checked).
        case truncated(Int)
    }

    /// Checks whole sequences from `start`, with local state only: ASCII runs eight bytes at
    /// a time, a character in one step.
    private static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int) -> ScanEnd {
        guard let base = bytes.baseAddress else { return .complete }
        let count = bytes.count
        var index = start
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                // A run of ASCII: a word at a time, then byte by byte (mixed text tries one
                // word per run, text without ASCII none).
                while index + 8 <= count,
                    base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                while index < count, bytes[index] < 0x80 {
                    index += 1
                }
                continue
            }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF:
                length = 2
            case 0xE0:
                length = 3
                lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF:
                length = 3
            case 0xED:
                length = 3
                upperBound = 0x9F
            case 0xF0:
                length = 4
                lowerBound = 0x90
            case 0xF1...0xF3:
                length = 4
            case 0xF4:
                length = 4
                upperBound = 0x8F
            default:
                return .invalid(index)
            }
            guard index + length <= count else { return .truncated(index) }
            let second = bytes[index + 1]
            guard second >= lowerBound, second <= upperBound else { return .invalid(index) }
            var continuation = 2
            while continuation < length {
                guard bytes[index + continuation] & 0xC0 == 0x80 else { return .invalid(index) }
                continuation += 1
            }
            index += length
        }
        return .complete
    }

    // MARK: Whole buffers

    /// Whether `bytes` is, by itself, complete valid UTF-8.
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isAtCharacterBoundary
    }

    /// Whether `bytes` is, by itself, complete valid UTF-8.
    package static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Self.isValid($0) }
    }

    /// The offset of the first byte that starts an ill-formed sequence (a truncated one at
    /// the end included), or `nil` when all of `bytes` is well-formed UTF-8.
    package static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        switch Self.scan(UnsafeRawBufferPointer(bytes), from: 0) {
        case .complete: return nil
        case .invalid(let start), .truncated(let start): return start
        }
    }
}
