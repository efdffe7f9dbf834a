package import RealtimeTime

/// The acknowledgements a namespace is waiting for, keyed by ack id, with optional deadlines.
///
/// socket.io-protocol v5, "Acknowledgement": an EVENT carrying an id expects an ACK with the
/// same id. Ids are allocated here, increasing from 0 like socket.io-client-swift
/// (`SocketIOClient.currentAck` starts at -1 and is incremented before each use). Deadlines
/// are inputs (time is never read): ``expire(now:)`` returns what timed out and
/// ``nextDeadline`` tells the owner when to call it.
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
    // from another module; unspecialized, its dictionary work ran through generic metadata.
    @usableFromInline var nextID = 0
    @usableFromInline var entries: [Int: Entry] = [:]

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
        return id
    }

    /// Removes and returns what waits for `id`; `nil` for an unknown, resolved or expired id
    /// (a late or duplicate ACK from the server).
    @inlinable
    package mutating func resolve(id: Int) -> Pending? {
        self.entries.removeValue(forKey: id)?.pending
    }

    /// Removes and returns what waits for `id` when `matches` accepts it; otherwise the entry
    /// stays (with its deadline) and the result is `nil`, as for an unknown id.
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

    /// Removes and returns the entries whose value matches, by increasing id.
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
    package mutating func removeAll() -> [Entry] {
        let all = self.entries.values.sorted { $0.id < $1.id }
        self.entries.removeAll()
        return all
    }
}

extension AckTable: Sendable where Pending: Sendable {}
extension AckTable.Entry: Sendable where Pending: Sendable {}
