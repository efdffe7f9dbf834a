/// UTF-8 validation (RFC 3629 §4): the package's one validator, incremental for text that
/// arrives in pieces (a WebSocket text message, RFC 6455 §8.1) and one-shot for a whole
/// buffer (a JSON or MessagePack string, an HTTP field, an Engine.IO packet).
///
/// Carries the state of a partly received character from one ``validate(_:)-(UnsafeRawBufferPointer)``
/// call to the next, and fails on the first byte that cannot start or continue a valid
/// sequence, so an invalid prefix is caught in the piece that carries it, not at the end of
/// the text (what Autobahn's 6.x cases call "fail fast"). Overlong forms, surrogates
/// (U+D800–U+DFFF) and code points above U+10FFFF are rejected through the allowed range of
/// the second byte.
///
/// Sixteen bytes at a time, every rule is checked at once on the eight bytes of a word
/// (additions and bitwise operations that never carry from one byte into the next), without a
/// branch on the characters' lengths, which text that mixes lengths (Latin, emoji) would
/// mispredict; a run of ASCII is skipped thirty-two bytes at a time. The last bytes, and the
/// exact place of an ill-formed sequence, are checked character by character. Plain `UInt64`
/// words, not `SIMD16<UInt8>`: the standard library's SIMD operations run unspecialized in a
/// debug build, thousands of times slower, and the tests run there.
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

    /// Checks whole sequences from `start` (a character boundary), with local state only:
    /// sixteen bytes at a time while sixteen remain (``scanBlocks(_:from:count:)``), then
    /// character by character (``scanSequences(_:from:count:)``), which also finds where the
    /// first ill-formed sequence starts when a block holds one.
    @inline(__always)
    private static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int) -> ScanEnd {
        guard let base = bytes.baseAddress else { return .complete }
        let resume = Self.scanBlocks(base, from: start, count: bytes.count)
        return Self.scanSequences(base, from: resume, count: bytes.count)
    }

    // MARK: Sixteen bytes at a time

    /// Validates sixteen bytes at a time from `start` (a character boundary) while sixteen
    /// remain, and returns the character boundary from which the rest must be checked
    /// character by character: the start of the last character that runs past the blocks, or
    /// of the one open before the first block that holds an ill-formed sequence.
    @inline(__always)
    private static func scanBlocks(_ base: UnsafeRawPointer, from start: Int, count: Int) -> Int {
        guard start + 16 <= count else { return start }
        // The first block: ASCII, or checked in a copy (see firstBlockErrors(_:)).
        if (Self.word(base, at: start) | Self.word(base, at: start + 8)) & Self.highBits != 0 {
            guard Self.firstBlockErrors(base + start) == 0 else { return start }
        }
        var index = start + 16
        while index + 16 <= count {
            // Sixteen ASCII bytes with ASCII before them: nothing to check.
            guard
                (Self.word(base, at: index - 3) | Self.word(base, at: index + 5) | Self.word(base, at: index + 8))
                    & Self.highBits != 0
            else {
                index += 16
                // A run of ASCII: thirty-two bytes at a time.
                while index + 32 <= count,
                    (Self.word(base, at: index) | Self.word(base, at: index + 8) | Self.word(base, at: index + 16)
                        | Self.word(base, at: index + 24)) & Self.highBits == 0
                {
                    index += 32
                }
                continue
            }
            guard Self.blockErrors(base, at: index) == 0 else { break }
            index += 16
        }
        // Back to the lead of a character still open at `index` (one at most: the bytes before
        // it are valid).
        if base.load(fromByteOffset: index - 1, as: UInt8.self) >= 0xC0 { return index - 1 }
        if base.load(fromByteOffset: index - 2, as: UInt8.self) >= 0xE0 { return index - 2 }
        if base.load(fromByteOffset: index - 3, as: UInt8.self) >= 0xF0 { return index - 3 }
        return index
    }

    /// The errors of the sixteen bytes at `first`, the first block of a scan: nothing before a
    /// scan's start leads a character, so the three bytes before it are read as ASCII, from a
    /// copy (they may not be in the buffer).
    @inline(never)
    private static func firstBlockErrors(_ first: UnsafeRawPointer) -> UInt64 {
        var window: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &window) { window in
            let copy = UnsafeRawPointer(window.baseAddress!)
            window.baseAddress!.advanced(by: 3).copyMemory(from: first, byteCount: 16)
            return Self.blockErrors(copy, at: 3)
        }
    }

    /// The high bit of every byte of a word: set where the byte is not ASCII.
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Each byte of `byte`'s value, as a word.
    @inline(__always)
    private static func spread(_ byte: UInt8) -> UInt64 {
        UInt64(byte) &* 0x0101_0101_0101_0101
    }

    /// The eight bytes at `offset`, in memory order (the checks treat each byte alike, so the
    /// platform's byte order does not matter).
    @inline(__always)
    private static func word(_ base: UnsafeRawPointer, at offset: Int) -> UInt64 {
        base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }

    /// Nonzero when one of the sixteen bytes at `offset` is ill-formed given the three bytes
    /// before them (RFC 3629 §4), without a branch on the text but one: whether a byte from E0
    /// up is within reach, which text of one script answers the same way block after block.
    @inline(__always)
    private static func blockErrors(_ base: UnsafeRawPointer, at offset: Int) -> UInt64 {
        let longLeads =
            Self.lanes(of: Self.word(base, at: offset - 3), atLeast: 0xE0)
            | Self.lanes(of: Self.word(base, at: offset + 5), atLeast: 0xE0)
            | Self.lanes(of: Self.word(base, at: offset + 8), atLeast: 0xE0)
        guard longLeads & Self.highBits != 0 else {
            // ASCII and two-byte characters only (Latin text): their rules are all.
            return Self.twoByteErrors(base, at: offset) | Self.twoByteErrors(base, at: offset + 8)
        }
        return Self.wordErrors(base, at: offset) | Self.wordErrors(base, at: offset + 8)
    }

    /// ``wordErrors(_:at:)`` where no byte from E0 up is within reach: a continuation byte
    /// exactly after a lead, and no C0 or C1.
    @inline(__always)
    private static func twoByteErrors(_ base: UnsafeRawPointer, at offset: Int) -> UInt64 {
        let current = Self.word(base, at: offset)
        let leads = Self.lanes(of: current, atLeast: 0xC0)
        let errors =
            (current & ~leads) ^ Self.lanes(of: Self.word(base, at: offset - 1), atLeast: 0xC0)
            | leads & ~Self.lanes(of: current, atLeast: 0xC2)
        return errors & Self.highBits
    }

    /// Nonzero when one of the eight bytes at `offset` is ill-formed given the three bytes
    /// before them (RFC 3629 §4), without a branch on the text: eight lanes of a word at once.
    ///
    /// A byte must be a continuation byte exactly where a lead within reach (one byte back of
    /// two bytes or more, two back of three or more, three back of four) needs one; C0, C1
    /// and F5 to FF are never valid; after E0, ED, F0 and F4 the second byte's range is
    /// narrower (overlongs, surrogates, beyond U+10FFFF). Only each byte's high bit counts,
    /// and no operation carries from one byte into the next: `x >= c` (for `c` of 0x80 or
    /// more) is the high bit of `(x & 0x7F) + (0x80 - c & 0x7F)` and of `x`, and `x == c` the
    /// high bit of the complement of `((x ^ c) & 0x7F) + 0x7F | (x ^ c)`; no sum passes 0xFF.
    /// The bytes before are read from memory, one, two and three bytes back, rather than
    /// shifted in.
    @inline(__always)
    private static func wordErrors(_ base: UnsafeRawPointer, at offset: Int) -> UInt64 {
        let current = Self.word(base, at: offset)
        let back1 = Self.word(base, at: offset - 1)
        let back2 = Self.word(base, at: offset - 2)
        let back3 = Self.word(base, at: offset - 3)
        let needsContinuation =
            Self.lanes(of: back1, atLeast: 0xC0) | Self.lanes(of: back2, atLeast: 0xE0)
            | Self.lanes(of: back3, atLeast: 0xF0)
        let leads = Self.lanes(of: current, atLeast: 0xC0)
        var errors = (current & ~leads) ^ needsContinuation
        errors |= leads & ~Self.lanes(of: current, atLeast: 0xC2)
        errors |= Self.lanes(of: current, atLeast: 0xF5)
        let fromA0 = Self.lanes(of: current, atLeast: 0xA0)
        let from90 = Self.lanes(of: current, atLeast: 0x90)
        errors |= Self.lanes(of: back1, equalTo: 0xE0) & ~fromA0
        errors |= Self.lanes(of: back1, equalTo: 0xED) & fromA0
        errors |= Self.lanes(of: back1, equalTo: 0xF0) & ~from90
        errors |= Self.lanes(of: back1, equalTo: 0xF4) & from90
        return errors & Self.highBits
    }

    /// The high bit of each byte of `word` that is `byte` or more, for `byte` 0x80 or more
    /// (the other bits are noise).
    @inline(__always)
    private static func lanes(of word: UInt64, atLeast byte: UInt8) -> UInt64 {
        ((word & Self.spread(0x7F)) &+ Self.spread(0x80 &- (byte & 0x7F))) & word
    }

    /// The high bit of each byte of `word` that equals `byte` (the other bits are noise).
    @inline(__always)
    private static func lanes(of word: UInt64, equalTo byte: UInt8) -> UInt64 {
        let difference = word ^ Self.spread(byte)
        return ~(((difference & Self.spread(0x7F)) &+ Self.spread(0x7F)) | difference)
    }

    // MARK: Character by character

    /// Checks whole sequences from `start` (a character boundary) to the end, a character in
    /// one step: its lead byte gives its length and the range of its second byte, the bytes
    /// after the second need only be continuation bytes. An ASCII byte costs one word: a word
    /// that holds a non-ASCII byte jumps straight to it (its first high bit).
    @inline(__always)
    private static func scanSequences(_ base: UnsafeRawPointer, from start: Int, count: Int) -> ScanEnd {
        var index = start
        while index < count {
            let lead = base.load(fromByteOffset: index, as: UInt8.self)
            if lead < 0x80 {
                guard index + 8 <= count else {
                    index += 1
                    continue
                }
                let high = UInt64(littleEndian: Self.word(base, at: index)) & Self.highBits
                // A whole word of ASCII, or the ASCII bytes (this one at least) before the first
                // that is not.
                index += high == 0 ? 8 : high.trailingZeroBitCount &>> 3
                continue
            }
            guard let sequence = Self.sequence(startingWith: lead) else { return .invalid(index) }
            let length = Int(sequence.length)
            guard index + length <= count else { return .truncated(index) }
            let second = base.load(fromByteOffset: index + 1, as: UInt8.self)
            guard second &- sequence.lowerBound <= sequence.upperBound &- sequence.lowerBound else {
                return .invalid(index)
            }
            if length > 2 {
                guard base.load(fromByteOffset: index + 2, as: UInt8.self) & 0xC0 == 0x80 else { return .invalid(index) }
                if length > 3 {
                    guard base.load(fromByteOffset: index + 3, as: UInt8.self) & 0xC0 == 0x80 else {
                        return .invalid(index)
                    }
                }
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
