#if canImport(Glibc)
import Glibc
#endif

/// Masking keys for client frames (RFC 6455 §5.3), without a lock: each thread draws from a
/// block of the kernel's random bytes that belongs to that thread alone.
///
/// RFC 6455 §5.3 asks for a fresh key per frame that the application cannot predict, "derived
/// from a strong source of entropy". That holds because:
/// - every key is 32 bits read from the kernel's CSPRNG (`/dev/urandom`, the generator behind
///   `getrandom(2)`), never computed from another key or from a seed of ours, and used once;
/// - a block (128 keys, 512 bytes) belongs to one thread (a `pthread` key's slot), is read only
///   here, and is refilled from the kernel when used up: nothing outside this type sees a key
///   before its frame is on the wire;
/// - a forked child throws away the forking thread's leftover block (a `pthread_atfork` child
///   handler), so parent and child never send the same keys. The child's other threads do not
///   exist; a thread it starts begins with a fresh block.
///
/// No lock: ``next()`` is synchronous and never suspends, so it runs start to end on one
/// thread, the only one that touches that thread's block. A thread's block is freed when the
/// thread exits. The threads that send frames (the cooperative pool's, the event loop's, an
/// app's own) are few, so the memory is a few blocks in all, not one per connection.
///
/// Where `Glibc` is missing (Apple platforms), each key comes from `SystemRandomNumberGenerator`
/// (`arc4random_buf` there: no system call per key, and no lock of ours).
///
/// ```swift
/// let value = WebSocketMaskingKeySource.shared.next()
/// ```
///
/// - Important: The type holds no state; ``shared`` is a name for the call site, not a shared
///   generator.
struct WebSocketMaskingKeySource: Sendable {
    /// The source (stateless: every thread has its own block).
    static let shared = WebSocketMaskingKeySource()

    /// The next unused 32-bit key.
    func next() -> UInt32 {
        #if canImport(Glibc)
        let block = ThreadKeyBlock.current()
        if block.used == ThreadKeyBlock.keyCount { block.refill() }
        return block.take()
        #else
        var generator = SystemRandomNumberGenerator()
        return generator.next()
        #endif
    }

    #if canImport(Glibc)
    /// Unused keys left in the calling thread's block (for tests).
    static var bufferedKeyCountOnThisThread: Int {
        guard let block = ThreadKeyBlock.existing() else { return 0 }
        return ThreadKeyBlock.keyCount - block.used
    }

    /// Throws away the calling thread's unused keys, as a forked child does (for tests).
    static func discardKeysOfThisThread() {
        ThreadKeyBlock.existing()?.discard()
    }
    #endif
}

#if canImport(Glibc)
/// One thread's keys, in one allocation of `1 + keyCount` words: how many keys are used, then
/// the keys.
private struct ThreadKeyBlock {
    static let keyCount = 128

    private let words: UnsafeMutablePointer<UInt32>

    /// The `pthread` key whose slot holds each thread's block. Created once; its destructor
    /// frees a thread's block when the thread exits. It registers the fork handler too.
    static let slot: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in raw?.deallocate() }
        precondition(rc == 0, "WebSocketMaskingKeySource: pthread_key_create failed (\(rc))")
        // In a forked child, the forking thread's unused keys are the parent's too: drop them.
        _ = pthread_atfork(nil, nil) { ThreadKeyBlock.existing()?.discard() }
        return key
    }()

    /// The calling thread's block, if it has one.
    static func existing() -> ThreadKeyBlock? {
        guard let raw = pthread_getspecific(Self.slot) else { return nil }
        return ThreadKeyBlock(words: raw.assumingMemoryBound(to: UInt32.self))
    }

    /// The calling thread's block, allocated on first use (with every key used: the first
    /// ``next()`` refills it).
    static func current() -> ThreadKeyBlock {
        if let block = Self.existing() { return block }
        let words = UnsafeMutablePointer<UInt32>.allocate(capacity: 1 + Self.keyCount)
        words.initialize(repeating: 0, count: 1 + Self.keyCount)
        words[0] = UInt32(Self.keyCount)
        let rc = pthread_setspecific(Self.slot, words)
        precondition(rc == 0, "WebSocketMaskingKeySource: pthread_setspecific failed (\(rc))")
        return ThreadKeyBlock(words: words)
    }

    /// Keys taken so far; `keyCount` when the block must be refilled.
    var used: Int { Int(self.words[0]) }

    /// The next unused key; the caller checked that one is left.
    func take() -> UInt32 {
        let index = Int(self.words[0])
        self.words[0] += 1
        return self.words[1 + index]
    }

    /// Marks every key used, so the next one comes from a refill.
    func discard() {
        self.words[0] = UInt32(Self.keyCount)
    }

    /// Overwrites the keys with fresh kernel randomness and marks them unused.
    func refill() {
        let keys = self.words + 1
        if !Self.readKernelRandom(into: UnsafeMutableRawBufferPointer(start: keys, count: Self.keyCount * 4)) {
            // One generator call per key (a system call each here); only if /dev/urandom fails.
            var generator = SystemRandomNumberGenerator()
            for index in 0..<Self.keyCount { keys[index] = generator.next() }
        }
        self.words[0] = 0
    }

    /// Reads `buffer.count` bytes of `/dev/urandom`: three system calls for a block. (The Glibc
    /// module does not export `getrandom(2)`; `/dev/urandom` is the same kernel CSPRNG and never
    /// blocks once the system is up.)
    private static func readKernelRandom(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
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
}
#endif
