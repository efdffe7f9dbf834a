/// Delivery with retries: socket.io-client's `retries` option (with `ackTimeout`), as a value.
///
/// Every emit is queued and gets an acknowledgement: the queue sends its head only, one try at
/// a time, and the next emit only once the head was acknowledged or given up. So emits reach
/// the server in the order they were made, each at least once on the wire, and each caller
/// hears exactly once: the ack, or the final failure after `retries + 1` tries.
///
/// The rules are socket.io-client 4.8's (`Socket._addToQueue` and `_drainQueue`):
/// - a try ends with the head's ack (``acknowledged(sequence:)``), with its ack timeout
///   (``timedOut(sequence:)``), or with the loss of the connection while it waited
///   (``disconnected()``); a try that ended without an ack is made again until `retries + 1`
///   tries were made, then the emit fails;
/// - an ack for anything but the head's current try is ignored (a late ack of an emit already
///   given up, or of an earlier try);
/// - nothing is sent while disconnected; each (re)connection sends the head again
///   (``connected()``, the JS client's `_drainQueue(true)` in `onconnect`).
///
/// The machine knows no ack ids and no clocks: a ``Action/send(sequence:emit:attempt:)`` is
/// written by the owner with a fresh ack id whose answer it feeds back by `sequence`, and the
/// owner's ack table times the try out.
///
/// ```swift
/// var queue = EmitRetryQueue<String>(retries: 2, limit: 100)
/// queue.connected()                  // []
/// queue.enqueue("a")                 // .queued(sequence: 0, [.send(sequence: 0, emit: "a", attempt: 1)])
/// queue.enqueue("b")                 // .queued(sequence: 1, []): "a" waits for its ack
/// queue.timedOut(sequence: 0)        // [.send(sequence: 0, emit: "a", attempt: 2)]
/// queue.acknowledged(sequence: 0)    // [.acknowledged("a"), .send(sequence: 1, emit: "b", attempt: 1)]
/// ```
///
/// - Important: A value type with no locking; the owner keeps it under its lock and performs
///   the returned actions in order after releasing it.
package struct EmitRetryQueue<Emit> {
    /// One queued emit.
    package struct Entry {
        /// The emit's place in the queue, for the owner's feedback.
        package let sequence: Int
        package let emit: Emit
        /// Tries made so far.
        package var tries: Int
        /// A try was written and waits for its ack.
        package var inFlight: Bool
    }

    /// What the owner does, in order.
    package enum Action {
        /// Write `emit` now with a fresh ack id; its answer is fed back as `sequence`.
        /// `attempt` counts from 1.
        case send(sequence: Int, emit: Emit, attempt: Int)
        /// The server acknowledged `emit`: hand the ack to its caller.
        case acknowledged(Emit)
        /// `emit` got no ack in `tries` tries: report the final failure to its caller.
        case failed(Emit, tries: Int)
    }

    /// How ``enqueue(_:)`` went.
    package enum EnqueueResult {
        /// Queued as `sequence`; the actions (a send, when it is the head and the socket is
        /// connected).
        case queued(sequence: Int, [Action])
        /// The queue holds ``limit`` emits already: this one was not queued.
        case full(limit: Int)
    }

    /// Tries after the first (the JS client's `retries`).
    package let retries: Int
    /// The most emits queued at once.
    package let limit: Int

    private var entries: [Entry] = []
    /// Where the queue starts in `entries` (compacted as it grows), so taking the head is O(1).
    private var headIndex = 0
    private var nextSequence = 0
    /// The socket is connected: the head may be written.
    package private(set) var isConnected = false

    /// - Parameters:
    ///   - retries: tries after the first; negative counts as 0.
    ///   - limit: the most emits queued at once; at least 1.
    package init(retries: Int, limit: Int) {
        self.retries = max(0, retries)
        self.limit = max(1, limit)
    }

    /// Emits queued, the head included.
    package var count: Int { self.entries.count - self.headIndex }

    /// The head, if any.
    package var head: Entry? { self.headIndex < self.entries.count ? self.entries[self.headIndex] : nil }

    /// Queues `emit` behind the others; it is sent at once when it is the head and the socket
    /// is connected.
    package mutating func enqueue(_ emit: Emit) -> EnqueueResult {
        guard self.count < self.limit else { return .full(limit: self.limit) }
        let sequence = self.nextSequence
        self.entries.append(Entry(sequence: sequence, emit: emit, tries: 0, inFlight: false))
        self.nextSequence &+= 1
        return .queued(sequence: sequence, self.drain(force: false))
    }

    /// The socket connected (or reconnected): the head is sent again, as a new try.
    package mutating func connected() -> [Action] {
        self.isConnected = true
        return self.drain(force: true)
    }

    /// The socket lost its connection: a try in flight ended without an ack. It is given up
    /// when it was the last allowed; otherwise it waits for ``connected()``.
    package mutating func disconnected() -> [Action] {
        self.isConnected = false
        guard let head = self.head, head.inFlight else { return [] }
        return self.tryEnded(sequence: head.sequence)
    }

    /// The server acknowledged the try of `sequence`: when that is the head, it is done and the
    /// next emit goes out; otherwise (not the head, or no try in flight) the ack is ignored.
    package mutating func acknowledged(sequence: Int) -> [Action] {
        guard let head = self.head, head.sequence == sequence, head.inFlight else { return [] }
        let done = self.removeHead()
        return [.acknowledged(done.emit)] + self.drain(force: false)
    }

    /// The try of `sequence` got no ack in time: it is made again, or the emit is given up
    /// after `retries + 1` tries and the next one goes out. Ignored when `sequence` is not the
    /// head's try in flight.
    package mutating func timedOut(sequence: Int) -> [Action] {
        self.tryEnded(sequence: sequence)
    }

    /// The caller of `sequence` stopped waiting (its task was cancelled): it leaves the queue,
    /// and when it was the head the next emit goes out. Its late ack is ignored.
    ///
    /// - Returns: the emit, if it was still queued, and the actions.
    package mutating func cancel(sequence: Int) -> (Emit?, [Action]) {
        guard let index = self.entries[self.headIndex...].firstIndex(where: { $0.sequence == sequence }) else {
            return (nil, [])
        }
        if index == self.headIndex {
            let removed = self.removeHead()
            return (removed.emit, self.drain(force: false))
        }
        return (self.entries.remove(at: index).emit, [])
    }

    /// Removes every queued emit (the socket is gone for good), in order.
    package mutating func removeAll() -> [Emit] {
        defer {
            self.entries.removeAll()
            self.headIndex = 0
        }
        return self.entries[self.headIndex...].map(\.emit)
    }

    private mutating func tryEnded(sequence: Int) -> [Action] {
        guard let head = self.head, head.sequence == sequence, head.inFlight else { return [] }
        // JS: `tryCount > retries` discards; the try just made counts.
        if head.tries > self.retries {
            let failed = self.removeHead()
            return [.failed(failed.emit, tries: failed.tries)] + self.drain(force: false)
        }
        self.entries[self.headIndex].inFlight = false
        return self.drain(force: false)
    }

    /// Sends the head unless it waits for an ack already (`force`: send it again anyway).
    private mutating func drain(force: Bool) -> [Action] {
        guard self.isConnected, self.headIndex < self.entries.count else { return [] }
        if self.entries[self.headIndex].inFlight && !force { return [] }
        self.entries[self.headIndex].inFlight = true
        self.entries[self.headIndex].tries += 1
        let head = self.entries[self.headIndex]
        return [.send(sequence: head.sequence, emit: head.emit, attempt: head.tries)]
    }

    private mutating func removeHead() -> Entry {
        let head = self.entries[self.headIndex]
        self.headIndex += 1
        if self.headIndex == self.entries.count {
            self.entries.removeAll(keepingCapacity: true)
            self.headIndex = 0
        } else if self.headIndex >= 64, self.headIndex * 2 >= self.entries.count {
            self.entries.removeFirst(self.headIndex)
            self.headIndex = 0
        }
        return head
    }
}

extension EmitRetryQueue: Sendable where Emit: Sendable {}
extension EmitRetryQueue.Entry: Sendable where Emit: Sendable {}
extension EmitRetryQueue.Action: Sendable where Emit: Sendable {}
extension EmitRetryQueue.EnqueueResult: Sendable where Emit: Sendable {}
extension EmitRetryQueue.Action: Equatable where Emit: Equatable {}
extension EmitRetryQueue.EnqueueResult: Equatable where Emit: Equatable {}
