#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte searches used by the event-stream scanner, eight bytes at a time.
enum ByteScanning {
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let colon: UInt8 = 0x3A
    static let space: UInt8 = 0x20

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// A word whose bytes that were zero in `word` have their high bit set. Only the lowest
    /// flagged byte is exact (borrows may flag bytes above it), which is all a search needs.
    @inline(__always)
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- Self.ones) & ~word & Self.highBits
    }

    /// Bytes searched eight at a time before a long line switches to `memchr`.
    static let wordSearchLimit = 128

    /// The offset of the first CR or LF in `bytes[start..<end]`, or `nil`.
    ///
    /// Short lines (most events) are found within the first ``wordSearchLimit`` bytes, eight
    /// at a time; the rest of a long line is searched with the C library's vectorized
    /// `memchr`, once for LF and once for CR before it, at memory speed.
    @inline(__always)
    static func firstLineEnd(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        let wordEnd = min(end, start &+ Self.wordSearchLimit)
        while index &+ 8 <= wordEnd {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let found = Self.zeroBytes(word ^ 0x0A0A_0A0A_0A0A_0A0A) | Self.zeroBytes(word ^ 0x0D0D_0D0D_0D0D_0D0D)
            if found != 0 {
                return index &+ (found.trailingZeroBitCount &>> 3)
            }
            index &+= 8
        }
        if end &- index > 64 {
            return Self.firstLineEndLong(base, from: index, to: end)
        }
        while index < end {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte == Self.lineFeed || byte == Self.carriageReturn { return index }
            index &+= 1
        }
        return nil
    }

    /// `memchr` for LF, then for CR before it.
    @inline(never)
    private static func firstLineEndLong(_ base: UnsafeRawPointer, from start: Int, to end: Int) -> Int? {
        let lineFeed = memchr(base + start, Int32(Self.lineFeed), end &- start)
        let crEnd = lineFeed.map { UnsafeRawPointer($0) - base } ?? end
        if let carriageReturn = memchr(base + start, Int32(Self.carriageReturn), crEnd &- start) {
            return UnsafeRawPointer(carriageReturn) - base
        }
        return lineFeed.map { UnsafeRawPointer($0) - base }
    }

    /// The offset of the first `byte` in `bytes`, or `nil`.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            if bytes[index] == byte { return index }
            index &+= 1
        }
        return nil
    }

    /// `bytes` without its first byte when that byte is a space (WHATWG §9.2.6: "If value
    /// starts with a U+0020 SPACE character, remove it from value").
    @inline(__always)
    static func droppingOneLeadingSpace(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let first = bytes.first, first == Self.space else { return bytes }
        return UnsafeRawBufferPointer(rebasing: bytes[1...])
    }

    /// Whether `bytes` equals the ASCII `literal` (a `StaticString` known at compile time).
    @inline(__always)
    static func bytes(_ bytes: UnsafeRawBufferPointer, equal literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let pointer = literal.utf8Start
        for index in 0..<bytes.count where bytes[index] != pointer[index] {
            return false
        }
        return true
    }

    /// Whether `bytes` starts with the five bytes `data:` (the hot path of every stream).
    @inline(__always)
    static func startsWithDataColon(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 5
            && bytes[0] == 0x64 && bytes[1] == 0x61 && bytes[2] == 0x74 && bytes[3] == 0x61 && bytes[4] == Self.colon
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` keeping the parser's typed error (the standard one is `rethrows`).
    @inline(__always)
    func withBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws(SSEParserError) -> Result
    ) throws(SSEParserError) -> Result {
        let outcome: Swift.Result<Result, SSEParserError> = self.withUnsafeBytes { raw in
            do throws(SSEParserError) {
                return .success(try body(raw))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
