// Masking keys (RFC 6455 §5.3): fresh, per thread, without a lock.
import Foundation
import Testing

@testable import RealtimeHTTP

@Suite("WebSocketMaskingKeySource")
struct WebSocketMaskingKeySourceTests {
    /// Draws `count` keys on a thread of its own (not the cooperative pool's), without blocking
    /// the caller's thread while it runs.
    private static func keysOnNewThread(_ count: Int) async -> [UInt32] {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: (0..<count).map { _ in WebSocketMaskingKeySource.shared.next() })
            }
            thread.start()
        }
    }

    @Test("10,000 keys across many refills are (nearly) all different and use every bit")
    func keysLookRandom() {
        let keys = (0..<10_000).map { _ in WebSocketMaskingKeySource.shared.next() }
        // 10,000 draws of 32 random bits repeat a value about 0.012 times on average.
        #expect(Set(keys).count >= 9_990)
        let everSet = keys.reduce(UInt32(0)) { $0 | $1 }
        let everClear = keys.reduce(UInt32(0)) { $0 | ~$1 }
        #expect(everSet == .max)
        #expect(everClear == .max)
    }

    @Test("threads draw from blocks of their own: two threads' keys do not repeat each other")
    func threadsHaveTheirOwnBlocks() async {
        async let first = Self.keysOnNewThread(2_000)
        async let second = Self.keysOnNewThread(2_000)
        let (a, b) = await (first, second)
        // A shared block (or one copied between threads) would give equal keys by the hundred;
        // independent ones share about 0.001 values out of 2,000 x 2,000 pairs.
        #expect(Set(a).intersection(b).count <= 2)
        #expect(Set(a).count >= 1_990)
        #expect(Set(b).count >= 1_990)
    }

    #if canImport(Glibc)
    @Test("a thread uses its block key by key; discarding it (a forked child's step) forces a refill")
    func discardForcesRefill() {
        // Synchronous: the whole test runs on one thread, so "this thread" stays the same.
        _ = WebSocketMaskingKeySource.shared.next()
        let left = WebSocketMaskingKeySource.bufferedKeyCountOnThisThread
        _ = WebSocketMaskingKeySource.shared.next()
        #expect(WebSocketMaskingKeySource.bufferedKeyCountOnThisThread == (left == 0 ? 127 : left - 1))
        WebSocketMaskingKeySource.discardKeysOfThisThread()
        #expect(WebSocketMaskingKeySource.bufferedKeyCountOnThisThread == 0)
        _ = WebSocketMaskingKeySource.shared.next()
        #expect(WebSocketMaskingKeySource.bufferedKeyCountOnThisThread == 127)
    }
    #endif
}
