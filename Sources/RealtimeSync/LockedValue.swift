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
/// The value and its mutex are one heap allocation (``LockedValueStorage``, a `ManagedBuffer`
/// with the mutex in its tail, as swift-nio's `NIOLockedValueBox` keeps them): a
/// `pthread_mutex_t` must never move, and Swift does not promise a stable address for a stored
/// property, but a `ManagedBuffer`'s elements stay where they were allocated. A value may
/// instead lock a ``LockDomain``'s mutex, which other values share (``init(_:sharing:)``).
///
/// Public (in a module no product exports), not `package`: Swift 6.3 does not specialize or
/// inline the `@inlinable` members of a generic `package` type in another module, so every
/// `withLock` of the package ran the unspecialized generic body, looking up the storage's type
/// metadata on each call (about 6% of a WebSocket ack's CPU in `perf`). Public, each caller
/// gets `withLock` inlined for its own state type.
///
/// A struct holding a reference: copies share the one value and mutex, as a class instance's
/// references would. `@unchecked Sendable` because the value is only read or written inside
/// `withLock`, which holds the mutex for the whole access. Like `Mutex`, it is not recursive:
/// calling `withLock` again from inside `body` on the same value (or another of its domain)
/// deadlocks (an error-checking mutex in debug builds traps instead).
public struct LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let storage: LockedValueStorage<Value>

    /// A value behind a mutex of its own.
    @inlinable
    public init(_ value: Value) {
        self.storage = LockedValueStorage.make(value, sharing: nil)
    }

    /// A value behind `domain`'s mutex, which other values may hold too: a `withLock` on any
    /// of them excludes every other (one serialization domain), and none of them may be
    /// locked again from inside another's `withLock`.
    @inlinable
    public init(_ value: Value, sharing domain: LockDomain) {
        self.storage = LockedValueStorage.make(value, sharing: domain)
    }

    /// The domain whose mutex this value locks; `nil` when the mutex is its own.
    public var domain: LockDomain? {
        self.storage.header.domain
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// - Important: Never call user code, or anything that may take this lock (or another
    ///   value's of the same ``domain``) again, inside `body`: compute what to do under the
    ///   lock, do it after.
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let header = self.storage.headerPointer
        LockedValueStorage<Value>.lock(header.pointee.mutex)
        defer { LockedValueStorage<Value>.unlock(header.pointee.mutex) }
        #if DEBUG
        header.pointee.domain?.countAcquisition()
        #endif
        return try body(&header.pointee.value)
    }

    /// Runs `body` with exclusive access to this value and `other`, a value of the same
    /// ``domain``, in one critical section of their one mutex: how an object reads or changes
    /// a sibling's state together with its own (a nested `withLock` would lock the mutex twice).
    @inlinable
    public func withLock<Other, Result, Failure: Error>(
        together other: LockedValue<Other>,
        _ body: (inout Value, inout Other) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let header = self.storage.headerPointer
        let otherHeader = other.storage.headerPointer
        precondition(header.pointee.mutex == otherHeader.pointee.mutex, "withLock(together:) needs two values of one domain")
        precondition(UnsafeRawPointer(header) != UnsafeRawPointer(otherHeader), "withLock(together:) needs two values")
        LockedValueStorage<Value>.lock(header.pointee.mutex)
        defer { LockedValueStorage<Value>.unlock(header.pointee.mutex) }
        #if DEBUG
        header.pointee.domain?.countAcquisition()
        #endif
        return try body(&header.pointee.value, &otherHeader.pointee.value)
    }
}

/// What a ``LockedValueStorage`` keeps before its tail: the value, the mutex it locks (its own
/// tail element, or its domain's) and the domain that keeps a shared mutex alive.
@usableFromInline
struct LockedValueHeader<Value> {
    @usableFromInline var value: Value
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let domain: LockDomain?

    @inlinable
    init(value: Value, mutex: UnsafeMutablePointer<pthread_mutex_t>, domain: LockDomain?) {
        self.value = value
        self.mutex = mutex
        self.domain = domain
    }
}

/// One allocation for a ``LockedValue``: the value in the header and, unless it shares a
/// domain's, its mutex as the one tail element.
@usableFromInline
final class LockedValueStorage<Value>: ManagedBuffer<LockedValueHeader<Value>, pthread_mutex_t> {
    // Inlinable, so a caller creates the storage of its own specialized type: unspecialized,
    // each `LockedValue(_:)` would look the class's generic metadata up in the runtime's cache.
    @inlinable
    static func make(_ value: Value, sharing domain: LockDomain?) -> LockedValueStorage<Value> {
        let buffer = Self.create(minimumCapacity: domain == nil ? 1 : 0) { buffer in
            let mutex =
                domain?.mutex
                ?? buffer.withUnsafeMutablePointerToElements { mutex in
                    initializeMutex(mutex)
                    return mutex
                }
            return LockedValueHeader(value: value, mutex: mutex, domain: domain)
        }
        return unsafeDowncast(buffer, to: LockedValueStorage<Value>.self)
    }

    /// The header's address, stable while the storage is alive.
    @inlinable var headerPointer: UnsafeMutablePointer<LockedValueHeader<Value>> {
        self.withUnsafeMutablePointerToHeader { $0 }
    }

    @inlinable
    static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_lock(mutex)
        assert(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    @inlinable
    static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_unlock(mutex)
        assert(status == 0, "pthread_mutex_unlock failed: \(status)")
    }

    deinit {
        if self.header.domain == nil {
            _ = self.withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }
}

/// One `pthread_mutex_t` at a stable address, which one or more ``LockedValue``s lock: a
/// serialization domain. Each object's state stays its own value, but the objects of one
/// domain (a Socket.IO manager, its engines and its sockets) are never in their critical
/// sections at the same time, so there is no lock order between them to keep.
///
/// The mutex is the object's one tail element (as swift-nio's `LockStorage` keeps it), so a
/// domain is one allocation.
///
/// The header counts the domain's critical sections in debug builds (``acquisitions``): what
/// the tests that count a Socket.IO session's lock acquisitions per message read.
public final class LockDomain: ManagedBuffer<Int, pthread_mutex_t> {
    /// A domain with a new mutex (error-checking in debug builds: a re-entrant lock traps).
    public static func make() -> LockDomain {
        let buffer = LockDomain.create(minimumCapacity: 1) { _ in 0 }
        let domain = unsafeDowncast(buffer, to: LockDomain.self)
        domain.withUnsafeMutablePointerToElements { initializeMutex($0) }
        return domain
    }

    /// The mutex; valid while the domain is alive (every ``LockedValue`` of it retains it).
    @usableFromInline
    var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        self.withUnsafeMutablePointerToElements { $0 }
    }

    /// How many critical sections the domain's values have entered (counted in debug builds
    /// only; always 0 in release builds).
    public var acquisitions: Int {
        let mutex = self.mutex
        LockedValueStorage<Void>.lock(mutex)
        defer { LockedValueStorage<Void>.unlock(mutex) }
        return self.header
    }

    /// Counts one critical section; called with the mutex held (debug builds).
    @usableFromInline
    func countAcquisition() {
        self.header += 1
    }

    deinit {
        _ = self.withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
}

/// Initializes a mutex in place: error-checking in debug builds, so a re-entrant lock traps
/// instead of deadlocking.
@usableFromInline
func initializeMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    #if DEBUG
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
    #endif
    let status = pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    precondition(status == 0, "pthread_mutex_init failed: \(status)")
}
