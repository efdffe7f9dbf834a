/// The 32-bit key a client masks every frame with (RFC 6455 §5.3).
///
/// The key is an input of the encoder so that tests are deterministic; the connection draws
/// it from a cryptographically strong source.
package struct WebSocketMaskingKey: Sendable, Hashable {
    package var bytes: (UInt8, UInt8, UInt8, UInt8)

    package init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        self.bytes = (b0, b1, b2, b3)
    }

    /// A key from the first four bytes of `bytes` (which must hold at least four).
    package init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count >= 4 else { return nil }
        var iterator = bytes.makeIterator()
        guard let b0 = iterator.next(), let b1 = iterator.next(),
            let b2 = iterator.next(), let b3 = iterator.next()
        else { return nil }
        self.bytes = (b0, b1, b2, b3)
    }

    package subscript(index: Int) -> UInt8 {
        switch index & 3 {
        case 0: return self.bytes.0
        case 1: return self.bytes.1
        case 2: return self.bytes.2
        default: return self.bytes.3
        }
    }

    package static func == (lhs: WebSocketMaskingKey, rhs: WebSocketMaskingKey) -> Bool {
        lhs.bytes == rhs.bytes
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(self.bytes.0)
        hasher.combine(self.bytes.1)
        hasher.combine(self.bytes.2)
        hasher.combine(self.bytes.3)
    }

    /// XORs `buffer` with the key in place; `phase` is the key index of `buffer[0]`.
    ///
    /// Works a machine word (8 bytes) at a time: the key repeated twice, laid out in memory
    /// order, is XORed over unaligned 8-byte loads, then the tail is done byte by byte.
    package func apply(to buffer: UnsafeMutableRawBufferPointer, phase: Int = 0) {
        guard let base = buffer.baseAddress else { return }
        let count = buffer.count
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { word in
            for index in 0..<8 { word[index] = self[index + phase] }
        }
        var offset = 0
        while offset + 8 <= count {
            let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            base.storeBytes(of: value ^ pattern, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            buffer[offset] ^= self[offset + phase]
            offset += 1
        }
    }
}
