/// A small deterministic random generator (SplitMix64) for property and fuzz tests: the same
/// seed gives the same sequence, so a failure reproduces.
package struct SplitMix64: RandomNumberGenerator {
    package var state: UInt64

    package init(seed: UInt64) {
        self.state = seed
    }

    package mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
