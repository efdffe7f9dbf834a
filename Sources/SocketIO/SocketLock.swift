import Foundation

/// One lock around one value: the only way the public classes of this module touch their
/// mutable state.
///
/// `@unchecked Sendable` because the value is only reached inside `withLock`, which holds an
/// `NSLock` for the whole access. The value may hold non-`Sendable` things (user callbacks,
/// `[Any]` payloads): they are copied out under the lock and used after it is released.
final class SocketLock<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    ///
    /// - Important: Never call user code or anything that may re-enter the owner inside `body`.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        self.lock.lock()
        defer { self.lock.unlock() }
        return try body(&self.state)
    }
}

/// Carries a non-`Sendable` value (a user callback, an `[Any]` payload) across a
/// `DispatchQueue` hop.
///
/// `@unchecked Sendable` because the library follows upstream's contract: user callbacks and
/// payloads are only run or read on the manager's serial `handleQueue`, one at a time.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
