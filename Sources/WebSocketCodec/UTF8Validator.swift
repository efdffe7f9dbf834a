/// Incremental UTF-8 validation (RFC 3629 §4), for text messages that arrive in pieces
/// (RFC 6455 §8.1).
///
/// Carries the state of a partly received character from one ``validate(_:)`` call to the
/// next, and fails on the first byte that cannot start or continue a valid sequence — so an
/// invalid prefix is caught in the fragment that carries it, not at the end of the message
/// (what Autobahn's 6.x cases call "fail fast"). Overlong forms, surrogates (U+D800–U+DFFF)
/// and code points above U+10FFFF are rejected through the allowed range of the second byte.
package struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes the current character still needs.
    private var remaining: UInt8 = 0
    /// Allowed range of the next continuation byte.
    private var lowerBound: UInt8 = 0x80
    private var upperBound: UInt8 = 0xBF

    package init() {}

    /// Whether everything validated so far ends on a character boundary: required at the
    /// end of a text message.
    package var isAtCharacterBoundary: Bool { self.remaining == 0 }

    package mutating func reset() {
        self = UTF8Validator()
    }

    /// Validates the next bytes of the text. Returns `false` at the first invalid byte; the
    /// validator is then meaningless until ``reset()``.
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if self.remaining == 0 {
                // ASCII fast path, eight bytes at a time.
                while index + 8 <= count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    index += 8
                }
                guard index < count else { return true }
                let byte = bytes[index]
                index += 1
                switch byte {
                case 0x00...0x7F:
                    continue
                case 0xC2...0xDF:
                    self.remaining = 1
                    self.lowerBound = 0x80
                    self.upperBound = 0xBF
                case 0xE0:
                    self.remaining = 2
                    self.lowerBound = 0xA0
                    self.upperBound = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF:
                    self.remaining = 2
                    self.lowerBound = 0x80
                    self.upperBound = 0xBF
                case 0xED:
                    self.remaining = 2
                    self.lowerBound = 0x80
                    self.upperBound = 0x9F
                case 0xF0:
                    self.remaining = 3
                    self.lowerBound = 0x90
                    self.upperBound = 0xBF
                case 0xF1...0xF3:
                    self.remaining = 3
                    self.lowerBound = 0x80
                    self.upperBound = 0xBF
                case 0xF4:
                    self.remaining = 3
                    self.lowerBound = 0x80
                    self.upperBound = 0x8F
                default:
                    return false
                }
            } else {
                let byte = bytes[index]
                index += 1
                guard byte >= self.lowerBound && byte <= self.upperBound else { return false }
                self.remaining -= 1
                self.lowerBound = 0x80
                self.upperBound = 0xBF
            }
        }
        return true
    }

    /// Validates the next bytes of the text.
    package mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { self.validate($0) }
    }

    /// Whether `bytes` is, by itself, complete valid UTF-8.
    package static func isValid(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isAtCharacterBoundary
    }
}
