import RealtimeSync

/// One lock around one value: the only way the public classes of this module touch their
/// mutable state.
///
/// The package's one lock type, RealtimeSync's `LockedValue` (a `pthread_mutex_t` that
/// ThreadSanitizer sees; an error-checking one in debug builds, so a re-entrant call traps
/// instead of deadlocking). It was an `NSLock` before: a second lock type, and a dynamically
/// dispatched call around the same mutex on every one of a packet's acquisitions.
///
/// The value may hold non-`Sendable` things (user callbacks, `[Any]` payloads): they are
/// copied out under the lock and used after it is released.
/// - Important: Never call user code or anything that may re-enter the owner inside
///   `withLock`.
typealias SocketLock<State> = LockedValue<State>
