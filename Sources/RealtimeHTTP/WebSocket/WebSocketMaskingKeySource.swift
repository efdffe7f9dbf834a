import RealtimeSync

#if canImport(Glibc)
import Glibc
#endif

/// Masking keys for client frames (RFC 6455 §5.3: "derived from a strong source of entropy",
/// unpredictable per frame), served from a block of the kernel generator's output that
/// is refilled when used up, so one read of the kernel's generator serves many frames
/// instead of one system call each.
///
/// Every key is still fresh cryptographic randomness, used once; only the system call is
/// amortized.
final class WebSocketMaskingKeySource: Sendable {
    /// The process-wide source.
    static let shared = WebSocketMaskingKeySource()

    /// Keys per refill (512 bytes of kernel randomness).
    private static let blockSize = 128

    private struct State {
        var block: [UInt64] = []
        /// Next unused 32-bit half: index `next / 2` in `block`.
        var next = 0
    }

    private let state = LockedValue(State())

    /// The next unused 32-bit key.
    func next() -> UInt32 {
        self.state.withLock { state in
            if state.next >= state.block.count * 2 {
                state.block = Self.freshBlock()
                state.next = 0
            }
            let word = state.block[state.next / 2]
            let key = UInt32(truncatingIfNeeded: state.next % 2 == 0 ? word : word >> 32)
            state.next += 1
            return key
        }
    }

    private static func freshBlock() -> [UInt64] {
        var block = [UInt64](repeating: 0, count: Self.blockSize / 2)
        #if canImport(Glibc)
        // The Glibc module does not export getrandom(2); /dev/urandom is the same kernel
        // CSPRNG and never blocks once the system is up: three system calls per block.
        let filled = block.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var offset = 0
            while offset < buffer.count {
                let count = read(descriptor, base + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        if filled { return block }
        #endif
        // One generator call per word (one system call each on some platforms).
        var generator = SystemRandomNumberGenerator()
        for index in block.indices {
            block[index] = generator.next()
        }
        return block
    }
}
