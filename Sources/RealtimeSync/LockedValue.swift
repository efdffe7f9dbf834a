#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// One value behind one `pthread_mutex_t`: the lock every stateful object of the package holds
/// around its state machine.
///
/// It replaces `Synchronization.Mutex` for two reasons:
/// - on Linux `Mutex` is a bare futex that ThreadSanitizer cannot see, so every access inside
///   `withLock` was reported as a race and real races drowned in them; a `pthread_mutex_t` is
///   intercepted by the sanitizer, so its reports mean something;
/// - `Mutex` needs macOS 15 / iOS 18, this type needs nothing newer than pthreads.
///
/// The mutex lives in its own heap allocation (as swift-nio's `NIOLock` keeps it) because a
/// `pthread_mutex_t` must never move, and Swift does not promise a stable address for a stored
/// property.
///
/// `@unchecked Sendable` because `value` is only read or written inside `withLock`, which holds
/// the mutex for the whole access. Like `Mutex`, it is not recursive: calling `withLock` again
/// from inside `body` on the same object deadlocks (an error-checking mutex in debug builds
/// traps instead).
package final class LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
        self.mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if DEBUG
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let status = pthread_mutex_init(self.mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(self.mutex)
        self.mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// - Important: Never call user code, or anything that may take this lock again, inside
    ///   `body`: compute what to do under the lock, do it after.
    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        self.lock()
        defer { self.unlock() }
        return try body(&self.value)
    }

    @inlinable
    func lock() {
        let status = pthread_mutex_lock(self.mutex)
        assert(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    @inlinable
    func unlock() {
        let status = pthread_mutex_unlock(self.mutex)
        assert(status == 0, "pthread_mutex_unlock failed: \(status)")
    }
}
