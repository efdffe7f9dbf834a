// Shared by every fuzz target (compiled into each target's module by scripts/fuzz.sh).

/// Stops the process when a checked property does not hold, so libFuzzer reports the input
/// as a crash (and saves it as an artifact).
@inline(never)
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition() {
        fatalError("fuzz property violated: \(message())", file: file, line: line)
    }
}

/// The fuzzer's input, read from the front for the target's choices (flags, limits, split
/// offsets); what is left is the payload.
struct FuzzInput {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        self.bytes = Array(UnsafeBufferPointer(start: data, count: size))[...]
    }

    /// The next byte, or 0 when the input is exhausted.
    mutating func byte() -> UInt8 {
        self.bytes.popFirst() ?? 0
    }

    /// The next two bytes as a little-endian integer.
    mutating func uint16() -> Int {
        Int(self.byte()) | Int(self.byte()) << 8
    }

    /// The rest of the input.
    mutating func rest() -> [UInt8] {
        defer { self.bytes = [] }
        return Array(self.bytes)
    }
}

/// Splits `bytes` into pieces at offsets derived from `seed` (between 1 and 8 pieces), so an
/// incremental decoder sees the same input cut at fuzzer-chosen places.
func pieces(of bytes: [UInt8], seed: Int) -> [ArraySlice<UInt8>] {
    guard !bytes.isEmpty else { return [bytes[...]] }
    var result: [ArraySlice<UInt8>] = []
    var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    var start = 0
    let count = 1 + Int(UInt64(truncatingIfNeeded: seed) % 8)
    for _ in 1..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let remaining = bytes.count - start
        guard remaining > 1 else { break }
        let cut = start + 1 + Int(state % UInt64(remaining - 1))
        result.append(bytes[start..<cut])
        start = cut
    }
    result.append(bytes[start...])
    return result
}
