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
/// The mutex lives in its own heap allocation, a ``LockDomain`` (as swift-nio's `NIOLock` keeps
/// it), because a `pthread_mutex_t` must never move, and Swift does not promise a stable address
/// for a stored property. Several values may share one domain's mutex (``init(_:sharing:)``).
///
/// `@unchecked Sendable` because `value` is only read or written inside `withLock`, which holds
/// the mutex for the whole access. Like `Mutex`, it is not recursive: calling `withLock` again
/// from inside `body` on the same object deadlocks (an error-checking mutex in debug builds
/// traps instead).
package final class LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Keeps ``mutex`` alive: this value's own mutex, or one it shares with others.
    package let domain: LockDomain
    @usableFromInline var value: Value

    /// A value behind a mutex of its own.
    package convenience init(_ value: Value) {
        self.init(value, sharing: LockDomain.make())
    }

    /// A value behind `domain`'s mutex, which other values may hold too: a `withLock` on any
    /// of them excludes every other (one serialization domain), and none of them may be
    /// locked again from inside another's `withLock`.
    package init(_ value: Value, sharing domain: LockDomain) {
        self.value = value
        self.domain = domain
        self.mutex = domain.mutex
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// - Important: Never call user code, or anything that may take this lock (or another
    ///   value's in the same ``domain``) again, inside `body`: compute what to do under the
    ///   lock, do it after.
    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        self.lock()
        defer { self.unlock() }
        return try body(&self.value)
    }

    /// Runs `body` with exclusive access to this value and `other`, a value of the same
    /// ``domain``, in one critical section of their one mutex: how an object reads or changes
    /// a sibling's state together with its own (a nested `withLock` would lock the mutex twice).
    @inlinable
    package func withLock<Other, Result, Failure: Error>(
        together other: LockedValue<Other>,
        _ body: (inout Value, inout Other) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        precondition(self.domain === other.domain, "withLock(together:) needs two values of one domain")
        precondition(self !== other, "withLock(together:) needs two values")
        self.lock()
        defer { self.unlock() }
        return try body(&self.value, &other.value)
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

/// One `pthread_mutex_t` at a stable address, which one or more ``LockedValue``s lock: a
/// serialization domain. Each object's state stays its own value, but the objects of one
/// domain (a Socket.IO manager, its engine and its sockets) are never in their critical
/// sections at the same time, so there is no lock order between them to keep.
///
/// The mutex is stored in the object's tail allocation (as swift-nio's `LockStorage` does), so
/// a domain is one allocation, like the separately allocated mutex it replaces.
package final class LockDomain: ManagedBuffer<Void, pthread_mutex_t> {
    /// A domain with a new mutex (error-checking in debug builds: a re-entrant lock traps).
    package static func make() -> LockDomain {
        let buffer = LockDomain.create(minimumCapacity: 1) { _ in () }
        let domain = unsafeDowncast(buffer, to: LockDomain.self)
        domain.withUnsafeMutablePointerToElements { mutex in
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            #if DEBUG
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
            #endif
            let status = pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }
        return domain
    }

    /// The mutex; valid while the domain is alive (every ``LockedValue`` of it retains it).
    @usableFromInline var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        self.withUnsafeMutablePointerToElements { $0 }
    }

    deinit {
        _ = self.withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
}
