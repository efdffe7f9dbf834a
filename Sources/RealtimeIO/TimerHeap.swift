package import RealtimeTime

/// The timers of an event loop: a binary min-heap keyed by (deadline, sequence), with an
/// index map from each timer's id to its slot, so that scheduling, cancelling and taking the
/// earliest timer are O(log n) and finding the next deadline is O(1).
///
/// A sans-I/O value: it never reads a clock (``popEarliest(dueAt:)`` takes `now` as an input),
/// holds no lock and runs no callback. Its owner (``EventLoop``) keeps it under the loop's
/// lock and runs the payloads it takes out after releasing that lock.
///
/// ```swift
/// var timers = TimerHeap<String>()
/// let a = timers.schedule(at: now + .seconds(2), "later")
/// timers.schedule(at: now + .seconds(1), "first")
/// timers.schedule(at: now + .seconds(1), "second")   // same deadline: after "first"
/// timers.cancel(a)                                    // -> "later"
/// timers.popEarliest(dueAt: now + .seconds(1))        // -> "first", then "second", then nil
/// ```
///
/// ## Ordering
/// Each timer gets a sequence number, counting up from 1 in scheduling order, which is also
/// its ``ID``. Timers fire by deadline; timers with equal deadlines fire in the order they
/// were scheduled (the sorted array this replaced kept the same order).
///
/// ## Why an index map, not lazy deletion
/// Cancelling removes the entry at once: the map (`slots`, id to heap index) finds it and the
/// heap restores its order in O(log n). Lazy deletion (mark the id cancelled, skip it when it
/// reaches the root) would save the map's upkeep on each move, but a cancelled timer would
/// stay in the heap until its deadline passed: a connection's heartbeat timeout, re-armed on
/// every ping and cancelled before it fires, would leave one dead entry per ping for a whole
/// timeout, and the root could be a cancelled timer, so the loop would wake for deadlines
/// nobody waits on. It would still need a set of live ids for ``contains(_:)`` and to make
/// cancelling a fired timer a no-op. With the map, the heap holds exactly the live timers and
/// ``earliestDeadline`` is always a live one.
///
/// ## Memory
/// Storage grows with the live timers and shrinks again: when the live timers fall to an
/// eighth of the capacity (above ``compactionFloor``), both the heap and the map are rebuilt
/// at twice the live count, an O(n) step paid for by the removals that emptied them. A burst
/// of 100,000 timers that are then cancelled leaves no more than the floor behind.
package struct TimerHeap<Payload> {
    /// A scheduled timer's identity: its sequence number. It means something only to the heap
    /// that issued it (another heap's timer of the same number is another timer).
    package struct ID: Hashable, Sendable {
        fileprivate let sequence: UInt64
    }

    fileprivate struct Entry {
        var deadline: MonotonicInstant
        var sequence: UInt64
        var payload: Payload
    }

    /// Capacity kept whatever the live count (entries; the map keeps about as many).
    package static var compactionFloor: Int { 1024 }

    /// The heap, earliest (deadline, sequence) at index 0; children of `i` at `2i+1`, `2i+2`.
    private var entries: [Entry] = []
    /// Every live timer's index in `entries`.
    private var slots: [UInt64: Int] = [:]
    private var nextSequence: UInt64 = 1

    package init() {}

    // MARK: Reading

    /// How many timers are scheduled.
    package var count: Int { self.entries.count }

    package var isEmpty: Bool { self.entries.isEmpty }

    /// The earliest deadline among the scheduled timers, `nil` when there are none.
    package var earliestDeadline: MonotonicInstant? { self.entries.first?.deadline }

    /// Whether `id` is scheduled: not yet taken by ``popEarliest(dueAt:)`` nor cancelled.
    package func contains(_ id: ID) -> Bool {
        self.slots[id.sequence] != nil
    }

    /// The storage's capacities (heap entries, map entries), for tests of the memory bound.
    package var storageCapacity: (entries: Int, slots: Int) {
        (self.entries.capacity, self.slots.capacity)
    }

    /// Whether the heap order holds and the map points at every entry and nothing else (for
    /// tests; O(n)).
    package var isConsistent: Bool {
        guard self.slots.count == self.entries.count else { return false }
        for index in self.entries.indices {
            guard self.slots[self.entries[index].sequence] == index else { return false }
            if index > 0 && self.orders(index, before: (index - 1) / 2) { return false }
        }
        return true
    }

    // MARK: Changing

    /// Schedules `payload` at `deadline`, after every timer already scheduled at the same
    /// deadline. O(log n).
    @discardableResult
    package mutating func schedule(at deadline: MonotonicInstant, _ payload: Payload) -> ID {
        let sequence = self.nextSequence
        self.nextSequence &+= 1
        self.entries.append(Entry(deadline: deadline, sequence: sequence, payload: payload))
        self.siftUp(from: self.entries.count - 1)
        return ID(sequence: sequence)
    }

    /// Removes the timer `id` and returns its payload; `nil` (and nothing changes) when it is
    /// not scheduled: already taken or already cancelled. O(log n).
    @discardableResult
    package mutating func cancel(_ id: ID) -> Payload? {
        guard let index = self.slots[id.sequence] else { return nil }
        return self.remove(at: index)
    }

    /// Removes and returns the earliest timer's payload when its deadline is at or before
    /// `now`; `nil` otherwise. O(log n).
    package mutating func popEarliest(dueAt now: MonotonicInstant) -> Payload? {
        guard let first = self.entries.first, first.deadline <= now else { return nil }
        return self.remove(at: 0)
    }

    // MARK: Heap order

    /// Whether the entry at `a` fires before the one at `b`.
    private func orders(_ a: Int, before b: Int) -> Bool {
        // Field by field: reading a whole entry would copy (retain) its payload.
        let lhs = self.entries[a].deadline
        let rhs = self.entries[b].deadline
        if lhs != rhs { return lhs < rhs }
        return self.entries[a].sequence < self.entries[b].sequence
    }

    private mutating func remove(at index: Int) -> Payload {
        let last = self.entries.count - 1
        if index != last { self.entries.swapAt(index, last) }
        let removed = self.entries.removeLast()
        self.slots[removed.sequence] = nil
        if index < self.entries.count {
            // The former last entry now sits at `index`: it belongs above or below it.
            if index > 0 && self.orders(index, before: (index - 1) / 2) {
                self.siftUp(from: index)
            } else {
                self.siftDown(from: index)
            }
        }
        self.compactIfSparse()
        return removed.payload
    }

    /// Moves the entry at `index` up to its place, updating the map for every entry it moves.
    private mutating func siftUp(from index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.orders(child, before: parent) else { break }
            self.entries.swapAt(child, parent)
            self.slots[self.entries[child].sequence] = child
            child = parent
        }
        self.slots[self.entries[child].sequence] = child
    }

    /// Moves the entry at `index` down to its place, updating the map for every entry it moves.
    private mutating func siftDown(from index: Int) {
        var parent = index
        let count = self.entries.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            let earlier = right < count && self.orders(right, before: left) ? right : left
            guard self.orders(earlier, before: parent) else { break }
            self.entries.swapAt(parent, earlier)
            self.slots[self.entries[parent].sequence] = parent
            parent = earlier
        }
        self.slots[self.entries[parent].sequence] = parent
    }

    /// Rebuilds the storage at twice the live count once it is at most an eighth full (and
    /// above the floor), so memory follows the live timers instead of their peak.
    private mutating func compactIfSparse() {
        let capacity = self.entries.capacity
        guard capacity > Self.compactionFloor, self.entries.count <= capacity / 8 else { return }
        let kept = max(2 * self.entries.count, Self.compactionFloor / 2)
        var entries: [Entry] = []
        entries.reserveCapacity(kept)
        entries.append(contentsOf: self.entries)
        var slots: [UInt64: Int] = Dictionary(minimumCapacity: kept)
        for index in entries.indices { slots[entries[index].sequence] = index }
        self.entries = entries
        self.slots = slots
    }
}

extension TimerHeap: Sendable where Payload: Sendable {}
extension TimerHeap.Entry: Sendable where Payload: Sendable {}
