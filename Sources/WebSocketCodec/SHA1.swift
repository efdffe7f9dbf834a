/// SHA-1 (FIPS 180-4 §6.1), only for `Sec-WebSocket-Accept` (RFC 6455 §4.2.2), where
/// collision resistance does not matter. There is no CryptoKit on Linux.
package struct SHA1: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var block: [UInt8] = []
    private var totalLength: UInt64 = 0

    package init() {
        self.block.reserveCapacity(64)
    }

    /// The 20-byte digest of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finalize()
    }

    package mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            self.block.append(byte)
            self.totalLength &+= 1
            if self.block.count == 64 {
                self.compress()
                self.block.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Pads, processes the last block(s) and returns the digest.
    package mutating func finalize() -> [UInt8] {
        let bitLength = self.totalLength &* 8
        self.block.append(0x80)
        if self.block.count > 56 {
            while self.block.count < 64 { self.block.append(0) }
            self.compress()
            self.block.removeAll(keepingCapacity: true)
        }
        while self.block.count < 56 { self.block.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            self.block.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        self.compress()
        self.block.removeAll(keepingCapacity: true)
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [self.state.0, self.state.1, self.state.2, self.state.3, self.state.4] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    private mutating func compress() {
        var w = [UInt32](repeating: 0, count: 80)
        for t in 0..<16 {
            w[t] =
                UInt32(self.block[t * 4]) << 24 | UInt32(self.block[t * 4 + 1]) << 16
                | UInt32(self.block[t * 4 + 2]) << 8 | UInt32(self.block[t * 4 + 3])
        }
        for t in 16..<80 {
            w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotatedLeft(by: 1)
        }
        var (a, b, c, d, e) = self.state
        for t in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch t {
            case 0..<20:
                f = (b & c) | (~b & d)
                k = 0x5A82_7999
            case 20..<40:
                f = b ^ c ^ d
                k = 0x6ED9_EBA1
            case 40..<60:
                f = (b & c) | (b & d) | (c & d)
                k = 0x8F1B_BCDC
            default:
                f = b ^ c ^ d
                k = 0xCA62_C1D6
            }
            let temp = a.rotatedLeft(by: 5) &+ f &+ e &+ k &+ w[t]
            e = d
            d = c
            c = b.rotatedLeft(by: 30)
            b = a
            a = temp
        }
        self.state = (
            self.state.0 &+ a, self.state.1 &+ b, self.state.2 &+ c,
            self.state.3 &+ d, self.state.4 &+ e
        )
    }
}

extension UInt32 {
    fileprivate func rotatedLeft(by count: UInt32) -> UInt32 {
        (self << count) | (self >> (32 - count))
    }
}
