package import RealtimeTime

/// The acknowledgements a namespace is waiting for, keyed by ack id, with optional deadlines.
///
/// socket.io-protocol v5, "Acknowledgement": an EVENT carrying an id expects an ACK with the
/// same id. Ids are allocated here, increasing from 0 like socket.io-client-swift
/// (`SocketIOClient.currentAck` starts at -1 and is incremented before each use). Deadlines
/// are inputs (time is never read): ``expire(now:)`` returns what timed out, and
/// ``wakeUpChange()`` tells the owner how to change its one wake-up for the earliest deadline
/// (the timer is an action the table returns, not something the owner works out).
///
/// ```swift
/// var acks = AckTable<Callback>()
/// let id = acks.register(callback, deadline: now + .seconds(5))   // 0
/// acks.resolve(id: 0)                                               // callback
/// acks.expire(now: later)                                           // [] (already resolved)
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
    /// The deadline of the owner's armed wake-up, as the last ``wakeUpChange()`` asked.
    @usableFromInline var wakeUpDeadline: MonotonicInstant?
    /// `true` when a change may have moved the earliest deadline away from
    /// ``wakeUpDeadline`` (an earlier registration, or the entry the wake-up was for left).
    @usableFromInline var wakeUpStale = false

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
    @inlinable
    package mutating func resolve(id: Int) -> Pending? {
        guard let entry = self.entries.removeValue(forKey: id) else { return nil }
        self.left(entry)
        return entry.pending
    }

    /// Removes and returns what waits for `id` when `matches` accepts it; otherwise the entry
    /// stays (with its deadline) and the result is `nil`, as for an unknown id.
    @inlinable
    package mutating func resolve(id: Int, if matches: (Pending) -> Bool) -> Pending? {
        guard let entry = self.entries[id], matches(entry.pending) else { return nil }
        self.entries[id] = nil
        self.left(entry)
        return entry.pending
    }

    /// `true` when something waits for `id`.
    @inlinable
    package func contains(id: Int) -> Bool {
        self.entries[id] != nil
    }

    /// Removes and returns every entry whose deadline is at or before `now`, by increasing id.
    package mutating func expire(now: MonotonicInstant) -> [Entry] {
        var expired: [Entry] = []
        for (id, entry) in self.entries {
            if let deadline = entry.deadline, deadline <= now {
                expired.append(entry)
                self.entries[id] = nil
                self.left(entry)
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

    /// Removes and returns the entries whose value matches, by increasing id.
    package mutating func remove(where matches: (Pending) -> Bool) -> [Entry] {
        var removed: [Entry] = []
        for (id, entry) in self.entries where matches(entry.pending) {
            removed.append(entry)
            self.entries[id] = nil
            self.left(entry)
        }
        removed.sort { $0.id < $1.id }
        return removed
    }

    /// Removes and returns every entry by increasing id (on disconnect). Ids keep counting.
    package mutating func removeAll() -> [Entry] {
        let all = self.entries.values.sorted { $0.id < $1.id }
        self.entries.removeAll()
        if self.wakeUpDeadline != nil { self.wakeUpStale = true }
        return all
    }

    // MARK: The wake-up

    /// How the owner's one wake-up for the table's deadlines must change.
    package enum WakeUpChange: Equatable, Sendable {
        /// Cancel the armed wake-up, if any, and arm one at this deadline; when it fires,
        /// call ``expire(now:)``, then ``wakeUpChange()`` again.
        case arm(MonotonicInstant)
        /// Cancel the armed wake-up: nothing waits with a deadline.
        case cancel
    }

    /// The change that makes the owner's wake-up match the earliest deadline; `nil` when the
    /// armed one (or none) already does. The owner applies it in the same critical section as
    /// the table change, so there is one wake-up at any time and no stale one is kept.
    ///
    /// A wake-up that fires late, after the table asked for another, needs no identity: its
    /// ``expire(now:)`` takes only what is due, and the current wake-up still matches.
    @inlinable
    package mutating func wakeUpChange() -> WakeUpChange? {
        guard self.wakeUpStale else { return nil }
        self.wakeUpStale = false
        let wanted = self.nextDeadline
        guard wanted != self.wakeUpDeadline else { return nil }
        self.wakeUpDeadline = wanted
        return wanted.map { .arm($0) } ?? .cancel
    }

    /// The deadline the owner's wake-up is armed for (`nil`: none), as the table asked.
    @inlinable
    package var armedWakeUp: MonotonicInstant? { self.wakeUpDeadline }

    /// Notes that `entry` left the table: if the wake-up was for its deadline (or one that
    /// passed), the next ``wakeUpChange()`` looks again.
    @inlinable
    mutating func left(_ entry: Entry) {
        if let deadline = entry.deadline, let armed = self.wakeUpDeadline, deadline <= armed {
            self.wakeUpStale = true
        }
    }
}

extension AckTable: Sendable where Pending: Sendable {}
extension AckTable.Entry: Sendable where Pending: Sendable {}
