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

/// Carries a non-`Sendable` value (a user callback, an `[Any]` payload) from one thread to
/// another: into a `handleQueue` block, or into the engine's state until the transport send
/// that completes it.
///
/// `@unchecked Sendable` because each box is handed over, not shared: the thread that makes
/// it does not touch the value after giving the box away, and the one receiver reads or runs
/// it (the ack callbacks and completions the socket wraps then run on the manager's serial
/// `handleQueue`, as upstream's contract says; a completion given to `SocketEngine.write`
/// directly runs on the thread that finished the send). The value itself is never accessed
/// from two threads at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
