/// Work that one thread at a time performs, in the order it was offered, without a thread or
/// queue of its own: the package's one "performer" device.
///
/// An owner whose inputs come from many threads (the engine's machine, fed by the caller of a
/// write and by the event loop's reads; a socket's status, changed from the caller of
/// `connect` and from `handleQueue`) must perform what those inputs produce after releasing its
/// lock, yet in the order they were produced. It keeps a `SerialTurns` inside its
/// ``LockedValue`` and offers each input's work in the critical section that produced it:
///
/// - when no thread is performing, ``offer(_:)`` hands the work back and the caller becomes the
///   performer: it performs the work on its own thread at once (nothing was queued, so nothing
///   is overtaken), then takes what others queued meanwhile (``nextBatch()``) until the
///   turn ends;
/// - while a thread performs, ``offer(_:)`` queues the work and returns `nil`: the performer
///   gets to it. Work offered re-entrantly, by the performer's own work, queues the same way.
///
/// ```swift
/// if let work = state.withLock({ $0.turns.offer(work) }) {
///     perform(work)
///     while let batch = state.withLock({ $0.turns.nextBatch() }) { batch.forEach(perform) }
/// }
/// ```
///
/// The turn ends in the critical section that finds the queue empty, so work offered after it
/// finds no performer and is performed by its own caller: nothing is left behind.
///
/// - Important: A value type with no lock: the owner keeps it under its own.
///
/// Public with `@inlinable` members (in a module no product exports), like ``LockedValue``:
/// Swift 6.3 does not specialize a generic `package` type's members in another module.
public struct SerialTurns<Work> {
    @usableFromInline var queued: [Work] = []
    @usableFromInline var performing = false

    /// `true` from the ``offer(_:)`` that made a caller the performer until the
    /// ``nextBatch()`` that found nothing queued.
    @inlinable public var isPerforming: Bool { self.performing }

    public init() {}

    /// How much work waits for the performer.
    @inlinable public var queuedCount: Int { self.queued.count }

    /// Offers `work`. Returns it when the caller must now perform it (no thread was performing:
    /// the caller is the performer until ``nextBatch()`` returns `nil`); returns `nil` when it
    /// was queued for the thread that is performing.
    @inlinable public mutating func offer(_ work: Work) -> Work? {
        guard !self.performing else {
            self.queued.append(work)
            return nil
        }
        self.performing = true
        return work
    }

    /// The performer's next work: everything queued, oldest first. `nil` ends the turn (nothing
    /// is queued, and the next ``offer(_:)`` makes its caller the performer).
    @inlinable public mutating func nextBatch() -> [Work]? {
        guard !self.queued.isEmpty else {
            self.performing = false
            return nil
        }
        defer { self.queued = [] }
        return self.queued
    }
}

extension SerialTurns: Sendable where Work: Sendable {}
