/// The parser's unconsumed input: an array plus a read index.
///
/// Consumed bytes are dropped lazily: the array is compacted only when the consumed prefix is
/// at least as long as what is left, so each byte is moved at most a constant number of
/// times (amortized O(1) per byte, no rescans). Appending to an empty buffer adopts the
/// caller's array without copying, and taking the whole buffer hands it back the same way.
struct HTTPInputBuffer: Sendable {
    private(set) var storage: [UInt8] = []
    private(set) var readIndex: Int = 0

    /// Unconsumed bytes.
    var count: Int { self.storage.count - self.readIndex }
    var isEmpty: Bool { self.readIndex == self.storage.count }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if self.isEmpty {
            self.storage = bytes
            self.readIndex = 0
            return
        }
        self.compactIfWorthwhile()
        self.storage.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        self.compactIfWorthwhile()
        self.storage.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        self.compactIfWorthwhile()
        self.storage.append(contentsOf: bytes)
    }

    private mutating func compactIfWorthwhile() {
        if self.readIndex > 0 && self.readIndex >= self.storage.count - self.readIndex {
            self.storage.removeSubrange(0..<self.readIndex)
            self.readIndex = 0
        }
    }

    /// The unconsumed byte at `offset` from the read position.
    subscript(offset: Int) -> UInt8 { self.storage[self.readIndex + offset] }

    /// The offset (from the read position) of the first LF at or after `offset`, or `nil`.
    func firstLineFeed(from offset: Int) -> Int? {
        let start = self.readIndex + offset
        guard start < self.storage.count else { return nil }
        return self.storage.withUnsafeBufferPointer { buffer -> Int? in
            var index = start
            let end = buffer.count
            while index < end {
                if buffer[index] == 0x0A { return index - self.readIndex }
                index &+= 1
            }
            return nil
        }
    }

    /// Bytes `[offset, offset + length)` from the read position, without consuming them.
    func slice(from offset: Int, length: Int) -> ArraySlice<UInt8> {
        let start = self.readIndex + offset
        return self.storage[start..<(start + length)]
    }

    mutating func consume(_ length: Int) {
        self.readIndex += length
        if self.readIndex == self.storage.count {
            // Drop the array rather than clearing it in place: it may be shared with the
            // caller that appended it, and clearing a shared array would copy it.
            self.storage = []
            self.readIndex = 0
        }
    }

    /// Removes and returns the next `length` bytes (a copy only when it must).
    mutating func take(_ length: Int) -> [UInt8] {
        if self.readIndex == 0 && length == self.storage.count {
            var result: [UInt8] = []
            swap(&result, &self.storage)
            return result
        }
        let result = Array(self.slice(from: 0, length: length))
        self.consume(length)
        return result
    }

    /// Removes and returns every unconsumed byte.
    mutating func takeAll() -> [UInt8] { self.take(self.count) }
}
