/// Tasks suspended until their owner wakes them: the one cancellable wait list of the package
/// (the engine's readers while reads are held back, its outbound room, the WebSocket
/// writer's `AsyncSerialLock`).
///
/// It lives inside the owner's ``LockedValue`` state, so the condition a task waits for and
/// the list it waits on change in the same critical section: a wake-up cannot fall between
/// the check and the suspension. A task waits through ``LockedValue/suspend(on:cancelled:unless:)``;
/// the owner takes waiters out under its lock (``takeAll()``, ``takeFirst()``) and resumes
/// them after releasing it. A task cancelled while it waits leaves the list (the others keep
/// their order) and is resumed with the `cancelled` value it gave.
public struct WaitList<Wake: Sendable>: Sendable {
    @usableFromInline var nextID: UInt64 = 0
    @usableFromInline var waiters: [(id: UInt64, continuation: UnsafeContinuation<Wake, Never>)] = []

    public init() {}

    /// How many tasks wait.
    @inlinable public var count: Int { self.waiters.count }

    @inlinable public var isEmpty: Bool { self.waiters.isEmpty }

    /// Takes every waiter, longest first, to be resumed after the lock is released.
    @inlinable public mutating func takeAll() -> [UnsafeContinuation<Wake, Never>] {
        guard !self.waiters.isEmpty else { return [] }
        defer { self.waiters = [] }
        return self.waiters.map(\.continuation)
    }

    /// Takes the longest waiter, to be resumed after the lock is released.
    @inlinable public mutating func takeFirst() -> UnsafeContinuation<Wake, Never>? {
        self.waiters.isEmpty ? nil : self.waiters.removeFirst().continuation
    }

    fileprivate mutating func reserveID() -> UInt64 {
        defer { self.nextID &+= 1 }
        return self.nextID
    }

    fileprivate mutating func append(_ id: UInt64, _ continuation: UnsafeContinuation<Wake, Never>) {
        self.waiters.append((id, continuation))
    }

    fileprivate mutating func remove(_ id: UInt64) -> UnsafeContinuation<Wake, Never>? {
        guard let index = self.waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return self.waiters.remove(at: index).continuation
    }
}

extension LockedValue {
    /// Returns what `start` returns, at once when it returns a value; otherwise suspends on the
    /// wait list at `list` until the owner resumes the task, or until the task is cancelled
    /// (then returns `cancelled`).
    ///
    /// `start` runs under the lock: once on the way in (one lock acquisition when there is no
    /// need to wait), and again right before the task is listed, so a change made between the
    /// two is not missed. A task already cancelled at that point is not listed.
    package func suspend<Wake: Sendable>(
        on list: WritableKeyPath<Value, WaitList<Wake>> & Sendable,
        cancelled: Wake,
        unless start: (inout Value) -> Wake?
    ) async -> Wake {
        // The value to return at once, or the id to wait under.
        let first = self.withLock { state -> (now: Wake?, id: UInt64) in
            if let value = start(&state) { return (value, 0) }
            return (nil, state[keyPath: list].reserveID())
        }
        if let now = first.now { return now }
        let id = first.id
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Wake, Never>) in
                let now = self.withLock { state -> Wake? in
                    if let value = start(&state) { return value }
                    // Checked under the lock: a cancellation after this runs its handler
                    // after the waiter is listed, and the handler takes it out.
                    if Task.isCancelled { return cancelled }
                    state[keyPath: list].append(id, continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = self.withLock { $0[keyPath: list].remove(id) }
            waiter?.resume(returning: cancelled)
        }
    }
}
