/// The unconsumed input of an incremental decoder: bytes appended as they arrive, read from the
/// front. The one input byte buffer of the package's codecs (the HTTP/1.1 response parser, the
/// WebSocket frame decoder, the SOCKS5 handshake).
///
/// An array plus a read index. Consumed bytes are dropped lazily: before an append the array
/// is compacted when the consumed prefix is at least as long as what is left, so each byte is
/// moved at most a constant number of times (amortized O(1) per byte consumed, however the
/// input was split). Appending to an empty buffer adopts the caller's array without copying,
/// and taking every held byte hands the array back the same way, so a body read from a socket
/// can pass through a parser without a copy.
///
/// The buffer has no limit of its own: the decoder that owns it checks its limits (a head's
/// size, a frame's length) before it appends or while it parses, and fails instead of
/// appending more.
///
/// ```swift
/// var input = InputByteBuffer()
/// input.append(bytesFromSocket)
/// while let lineFeed = input.firstIndex(of: 0x0A) {
///     let line = input.take(lineFeed + 1)
///     handle(line)
/// }
/// ```
///
/// Offsets are counted from the read position: `input[0]` is the next unconsumed byte.
///
/// - Important: A value type with no locking; the owner serializes access.
public struct InputByteBuffer: Sendable {
    // `public` with @inlinable members although no product exports the module (as
    // RealtimeSync's types): Swift 6.3 did not inline a `package` type's @inlinable members
    // into another module (each byte a decoder read was a call to the subscript; measured
    // with CodecBenchmark, 10 to 20% slower WebSocket decoding).
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var readIndex = 0

    @inlinable
    public init() {}

    /// Unconsumed bytes.
    @inlinable
    public var count: Int { self.storage.count &- self.readIndex }

    @inlinable
    public var isEmpty: Bool { self.readIndex == self.storage.count }

    /// Bytes held, the consumed ones not yet dropped included: at most about twice ``count``
    /// plus the last append (what the compaction rule bounds).
    @inlinable
    public var heldByteCount: Int { self.storage.count }

    // MARK: Appending

    /// Adds bytes at the end; adopts `bytes` without copying when the buffer is empty.
    @inlinable
    public mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if self.isEmpty {
            self.storage = bytes
            self.readIndex = 0
            return
        }
        self.compactIfWorthwhile()
        self.storage.append(contentsOf: bytes)
    }

    /// Adds bytes at the end (copying them).
    @inlinable
    public mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        self.compactIfWorthwhile()
        self.storage.append(contentsOf: bytes)
    }

    /// Adds bytes at the end (copying them).
    @inlinable
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        self.compactIfWorthwhile()
        self.storage.append(contentsOf: bytes)
    }

    /// Drops the consumed prefix when it is at least as long as what is left.
    @inlinable
    mutating func compactIfWorthwhile() {
        if self.readIndex > 0 && self.readIndex >= self.storage.count &- self.readIndex {
            self.storage.removeSubrange(0..<self.readIndex)
            self.readIndex = 0
        }
    }

    // MARK: Reading without consuming

    /// The unconsumed byte at `offset` from the read position (`offset < count`).
    @inlinable
    public subscript(offset: Int) -> UInt8 { self.storage[self.readIndex &+ offset] }

    /// The offset (from the read position) of the first `byte` at or after `offset`, or `nil`.
    @inlinable
    public func firstIndex(of byte: UInt8, from offset: Int = 0) -> Int? {
        let start = self.readIndex &+ offset
        guard start < self.storage.count else { return nil }
        return self.storage.withUnsafeBufferPointer { buffer -> Int? in
            var index = start
            let end = buffer.count
            while index < end {
                if buffer[index] == byte { return index &- self.readIndex }
                index &+= 1
            }
            return nil
        }
    }

    /// Bytes `[offset, offset + length)` from the read position, without consuming them.
    @inlinable
    public func slice(from offset: Int, length: Int) -> ArraySlice<UInt8> {
        let start = self.readIndex &+ offset
        return self.storage[start..<(start &+ length)]
    }

    /// Calls `body` with the unconsumed bytes (valid only during the call).
    @inlinable
    public func withUnsafeReadableBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        self.storage.withUnsafeBytes { all in
            body(UnsafeRawBufferPointer(rebasing: all[self.readIndex...]))
        }
    }

    // MARK: Consuming

    /// Drops the next `length` bytes (`length <= count`).
    @inlinable
    public mutating func consume(_ length: Int) {
        self.readIndex &+= length
        if self.readIndex == self.storage.count {
            // Drop the array rather than clearing it in place: it may be shared with the
            // caller that appended it, and clearing a shared array would copy it.
            self.storage = []
            self.readIndex = 0
        }
    }

    /// Removes and returns the next `length` bytes (`length <= count`): the held array itself
    /// when that is all of it, a copy otherwise.
    @inlinable
    public mutating func take(_ length: Int) -> [UInt8] {
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
    @inlinable
    public mutating func takeAll() -> [UInt8] { self.take(self.count) }

    /// Drops every byte and the storage.
    @inlinable
    public mutating func removeAll() {
        self.storage = []
        self.readIndex = 0
    }
}
