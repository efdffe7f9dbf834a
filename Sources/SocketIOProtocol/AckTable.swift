package import RealtimeTime

/// The acknowledgements a namespace is waiting for, keyed by ack id, with optional deadlines.
///
/// socket.io-protocol v5, "Acknowledgement": an EVENT carrying an id expects an ACK with the
/// same id. Ids are allocated here, increasing from 0 like socket.io-client-swift
/// (`SocketIOClient.currentAck` starts at -1 and is incremented before each use). Deadlines
/// are inputs (time is never read): ``expire(now:)`` returns what timed out, and
/// ``wakeUpChange()`` tells the owner how to change its one wake-up for the deadlines
/// (the timer is an action the table returns, not something the owner works out).
///
/// The wake-up is lazy: it is armed no later than the earliest deadline, but an entry leaving
/// (answered, cancelled, removed) does not move or cancel it. It may outlive the entry it was
/// armed for and then fires once, finds nothing due, and is armed again only for what still
/// waits. Why: in a request/response loop every emit would otherwise arm the wake-up (the
/// table was empty) and its answer cancel it (empty again), one schedule and one cancel per
/// acknowledged emit; lazily the wake-up is armed about once per timeout period.
///
/// ```swift
/// var acks = AckTable<Callback>()
/// let id = acks.register(callback, deadline: now + .seconds(5))   // 0
/// acks.wakeUpChange()                                               // .arm(now + 5 s)
/// acks.resolve(id: 0)                                               // callback
/// acks.wakeUpChange()                                               // nil: the wake-up stays
/// // 5 s later the owner's wake-up fires:
/// acks.wakeUpFired(armedFor: now + .seconds(5))                     // true: it was the armed one
/// acks.expire(now: later)                                           // [] (already resolved)
/// acks.wakeUpChange()                                               // .cancel: nothing left, let it go
/// ```
///
/// - Important: Not thread-safe by itself; the owner keeps it under its lock.
package struct AckTable<Pending> {
    /// One waiting acknowledgement.
    package struct Entry {
        /// The ack id sent with the EVENT.
        package var id: Int
        /// When the acknowledgement times out; `nil` waits forever.
        package var deadline: MonotonicInstant?
        /// What the owner stored (typically the callback).
        package var pending: Pending

        @inlinable
        package init(id: Int, deadline: MonotonicInstant?, pending: Pending) {
            self.id = id
            self.deadline = deadline
            self.pending = pending
        }
    }

    // `@usableFromInline` and the `@inlinable` members below: the table is used once per ack
    // from another module; unspecialized, its dictionary work runs through generic metadata.
    // Swift 6.3 does not specialize a generic `package` type's `@inlinable` members in another
    // module (RealtimeSync's types are public for that reason); here that costs about 0.3% of
    // a WebSocket ack's perf samples, and making the table public would make `MonotonicInstant`
    // public with it, so it stays `package` for now.
    @usableFromInline var nextID = 0
    @usableFromInline var entries: [Int: Entry] = [:]
    /// The deadline of the owner's armed wake-up, as the last ``wakeUpChange()`` asked; `nil`
    /// once it fired (``wakeUpFired(armedFor:)``) or was cancelled. No entry waits with an
    /// earlier deadline, but the entry it was armed for may have left.
    @usableFromInline var wakeUpDeadline: MonotonicInstant?
    /// `true` when the next ``wakeUpChange()`` must look again: a registration earlier than
    /// ``wakeUpDeadline`` (or with none armed), the armed wake-up fired, or ``removeAll()``.
    @usableFromInline var wakeUpStale = false
    /// `true` from ``wakeUpFired(armedFor:)`` to the next ``wakeUpChange()``: the armed
    /// wake-up fired, so that change is `.cancel` when nothing is left to arm for (the owner
    /// lets go of the spent timer).
    @usableFromInline var wakeUpSpent = false

    /// An empty table whose first id is 0.
    package init() {}

    /// How many acknowledgements are waiting.
    @inlinable
    package var count: Int { self.entries.count }

    /// `true` when nothing is waiting.
    @inlinable
    package var isEmpty: Bool { self.entries.isEmpty }

    /// The id the next ``register(_:deadline:)`` will return.
    @inlinable
    package var peekNextID: Int { self.nextID }

    /// Allocates the next id and remembers `pending` under it.
    ///
    /// - Parameter deadline: when the acknowledgement times out; `nil` waits forever.
    /// - Returns: the ack id to put in the EVENT packet.
    @inlinable
    package mutating func register(_ pending: Pending, deadline: MonotonicInstant?) -> Int {
        let id = self.nextID
        self.nextID = self.nextID == Int.max ? 0 : self.nextID + 1
        self.entries[id] = Entry(id: id, deadline: deadline, pending: pending)
        if let deadline, self.wakeUpDeadline.map({ deadline < $0 }) ?? true { self.wakeUpStale = true }
        return id
    }

    /// Removes and returns what waits for `id`; `nil` for an unknown, resolved or expired id
    /// (a late or duplicate ACK from the server).
    ///
    /// The wake-up stays as it is, even when it was armed for this entry's deadline: it fires
    /// then and finds nothing due.
    @inlinable
    package mutating func resolve(id: Int) -> Pending? {
        self.entries.removeValue(forKey: id)?.pending
    }

    /// Removes and returns what waits for `id` when `matches` accepts it; otherwise the entry
    /// stays (with its deadline) and the result is `nil`, as for an unknown id. The wake-up
    /// stays as it is (as for ``resolve(id:)``).
    @inlinable
    package mutating func resolve(id: Int, if matches: (Pending) -> Bool) -> Pending? {
        guard let entry = self.entries[id], matches(entry.pending) else { return nil }
        self.entries[id] = nil
        return entry.pending
    }

    /// `true` when something waits for `id`.
    @inlinable
    package func contains(id: Int) -> Bool {
        self.entries[id] != nil
    }

    /// Removes and returns every entry whose deadline is at or before `now`, by increasing id.
    ///
    /// Called when the owner's wake-up fires, after ``wakeUpFired(armedFor:)``. By itself it
    /// leaves the wake-up as it is.
    package mutating func expire(now: MonotonicInstant) -> [Entry] {
        var expired: [Entry] = []
        for (id, entry) in self.entries {
            if let deadline = entry.deadline, deadline <= now {
                expired.append(entry)
                self.entries[id] = nil
            }
        }
        expired.sort { $0.id < $1.id }
        return expired
    }

    /// The earliest deadline still pending, to schedule the next ``expire(now:)``.
    @inlinable
    package var nextDeadline: MonotonicInstant? {
        // A plain loop: in this generic type a key path (`compactMap(\.deadline)`) is built
        // at run time on every call, which cost more than the rest of an ack's handling.
        var earliest: MonotonicInstant?
        for entry in self.entries.values {
            if let deadline = entry.deadline, earliest.map({ deadline < $0 }) ?? true {
                earliest = deadline
            }
        }
        return earliest
    }

    /// Removes and returns the entries whose value matches, by increasing id. The wake-up
    /// stays as it is (as for ``resolve(id:)``).
    package mutating func remove(where matches: (Pending) -> Bool) -> [Entry] {
        var removed: [Entry] = []
        for (id, entry) in self.entries where matches(entry.pending) {
            removed.append(entry)
            self.entries[id] = nil
        }
        removed.sort { $0.id < $1.id }
        return removed
    }

    /// Removes and returns every entry by increasing id (on disconnect). Ids keep counting.
    ///
    /// Unlike the other removals, the next ``wakeUpChange()`` cancels an armed wake-up: with
    /// nothing left, the owner keeps no timer.
    package mutating func removeAll() -> [Entry] {
        let all = self.entries.values.sorted { $0.id < $1.id }
        self.entries.removeAll()
        self.releaseIdleWakeUp()
        return all
    }

    // MARK: The wake-up

    /// How the owner's one wake-up for the table's deadlines must change.
    package enum WakeUpChange: Equatable, Sendable {
        /// Cancel the armed wake-up, if any, and arm one at this deadline; when it fires,
        /// call ``wakeUpFired(armedFor:)`` with this deadline, ``expire(now:)``, then
        /// ``wakeUpChange()`` again.
        case arm(MonotonicInstant)
        /// Cancel the armed wake-up, or let go of the one that fired: nothing waits with a
        /// deadline (``removeAll()``, ``releaseIdleWakeUp()``, ``wakeUpFired(armedFor:)``).
        case cancel
    }

    /// The change the owner's wake-up needs; `nil` when the armed one (or none) will do. The
    /// owner applies it in the same critical section as the table change, so there is one
    /// wake-up at any time.
    ///
    /// It arms when a registration is earlier than the armed wake-up (or none is armed), and,
    /// after the armed wake-up fired, for the earliest deadline still waiting (`.cancel` when
    /// none is: the owner lets go of the fired timer). An answered or removed entry asks for no
    /// change: the wake-up armed for it fires once and finds nothing due (see the type's
    /// discussion for why).
    @inlinable
    package mutating func wakeUpChange() -> WakeUpChange? {
        guard self.wakeUpStale else { return nil }
        self.wakeUpStale = false
        let spent = self.wakeUpSpent
        self.wakeUpSpent = false
        let wanted = self.nextDeadline
        guard wanted != self.wakeUpDeadline || spent else { return nil }
        self.wakeUpDeadline = wanted
        return wanted.map { .arm($0) } ?? .cancel
    }

    /// The owner's wake-up armed for `deadline` fired. When that is the armed wake-up the
    /// table forgets it, and the next ``wakeUpChange()`` arms for the earliest deadline still
    /// waiting after ``expire(now:)``.
    ///
    /// A wake-up that was replaced (an earlier registration asked for another) but fired
    /// anyway, its cancel too late, changes nothing: the current one stays armed.
    ///
    /// - Returns: `true` when it was the armed wake-up (the next ``wakeUpChange()`` then
    ///   re-arms or says `.cancel`).
    @inlinable
    @discardableResult
    package mutating func wakeUpFired(armedFor deadline: MonotonicInstant) -> Bool {
        guard self.wakeUpDeadline == deadline else { return false }
        self.wakeUpDeadline = nil
        self.wakeUpStale = true
        self.wakeUpSpent = true
        return true
    }

    /// Makes the next ``wakeUpChange()`` cancel the armed wake-up when nothing waits with a
    /// deadline (on disconnect, so a socket that no longer needs its timer keeps none);
    /// otherwise the wake-up stays.
    @inlinable
    package mutating func releaseIdleWakeUp() {
        if self.wakeUpDeadline != nil, self.nextDeadline == nil { self.wakeUpStale = true }
    }

    /// The deadline the owner's wake-up is armed for (`nil`: none), as the table asked.
    @inlinable
    package var armedWakeUp: MonotonicInstant? { self.wakeUpDeadline }
}

extension AckTable: Sendable where Pending: Sendable {}
extension AckTable.Entry: Sendable where Pending: Sendable {}
