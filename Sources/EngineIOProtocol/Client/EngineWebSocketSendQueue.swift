/// The send queue of one Engine.IO WebSocket: one queue, one writer, one flush.
///
/// Sans-I/O, in the manner of swift-nio's `PendingWritesManager`: the owner reports each
/// ``EngineClientAction/sendWebSocketFrames(_:)`` (and the close) with ``enqueue(_:)`` in the
/// order the protocol machine produced them. When no write is in progress the caller becomes
/// the writer: it gets a ``Batch`` (everything queued, up to and including a close) to write in
/// one go, then reports ``written()`` and either gets the next batch (entries queued while it
/// wrote) or the queue goes idle. So at most one writer exists at a time, each batch is one
/// flush, and batches leave in queue order: nothing overtakes anything.
///
/// Write ids (the engine's write-completion tickets) travel with the frames; a batch carries
/// the last one, whose completions (and all before it) are due once the batch was written.
/// Reporting them before ``written()`` keeps completions in the writes' order.
///
/// States: `idle` (no writer), `sending` (a writer holds a batch; entries queue behind it),
/// `draining` (a close was queued: frames queued before it still go out, later ones are
/// dropped), `closed` (the close was handed to a writer, or the connection failed).
package struct EngineWebSocketSendQueue: Sendable {
    /// One send the protocol machine asked for.
    package enum Entry: Sendable, Hashable {
        /// Frames, with the highest write id they carry (if any).
        case frames([EngineWebSocketFrame], writeID: Int?)
        /// Close the connection after everything queued before.
        case close
    }

    /// What the writer sends in one flush.
    package struct Batch: Sendable, Hashable {
        /// The frames, in order.
        package var frames: [EngineWebSocketFrame]
        /// The highest write id among the frames: completions through it are due once written.
        package var writeID: Int?
        /// After the frames, close the connection; no batch follows.
        package var closes: Bool

        package init(frames: [EngineWebSocketFrame], writeID: Int? = nil, closes: Bool = false) {
            self.frames = frames
            self.writeID = writeID
            self.closes = closes
        }
    }

    /// Where the queue is.
    package enum State: Sendable, Hashable {
        case idle
        case sending
        case draining
        case closed
    }

    package private(set) var state: State = .idle
    private var queue: [Entry] = []
    /// `true` while a writer holds a batch (in `sending` and `draining`).
    private var writerActive = false

    package init() {}

    /// Entries waiting behind the writer's batch.
    package var queuedCount: Int { self.queue.count }

    /// Queues `entry` behind everything before it.
    ///
    /// - Returns: the batch the caller must now write (it became the writer) and report with
    ///   ``written()``; `nil` when a writer is at work (it will take the entry), or the queue
    ///   is draining or closed (the entry is dropped).
    package mutating func enqueue(_ entry: Entry) -> Batch? {
        switch self.state {
        case .closed, .draining:
            return nil
        case .idle, .sending:
            self.queue.append(entry)
            if case .close = entry { self.state = .draining }
            guard !self.writerActive else { return nil }
            return self.takeBatch()
        }
    }

    /// The writer wrote its batch.
    ///
    /// - Returns: the next batch (what was queued meanwhile), which the same writer writes and
    ///   reports; `nil` when nothing is queued (the queue goes idle, or stays closed).
    package mutating func written() -> Batch? {
        guard self.writerActive else { return nil }
        self.writerActive = false
        if self.state == .closed { return nil }
        guard !self.queue.isEmpty else {
            if self.state == .sending { self.state = .idle }
            return nil
        }
        return self.takeBatch()
    }

    /// The connection failed (or the attempt ended without a close): drops what is queued; no
    /// batch is handed out any more.
    ///
    /// - Returns: the write ids dropped (highest last), so their owner can settle them.
    @discardableResult
    package mutating func fail() -> [Int] {
        let dropped = self.queue.compactMap { entry -> Int? in
            if case .frames(_, let writeID) = entry { return writeID }
            return nil
        }
        self.queue = []
        self.state = .closed
        return dropped
    }

    /// Everything queued, up to and including the first close.
    private mutating func takeBatch() -> Batch? {
        guard !self.queue.isEmpty else { return nil }
        var batch = Batch(frames: [])
        var taken = 0
        for entry in self.queue {
            taken += 1
            switch entry {
            case .frames(let frames, let writeID):
                batch.frames += frames
                if let writeID { batch.writeID = writeID }
            case .close:
                batch.closes = true
            }
            if batch.closes { break }
        }
        if taken == self.queue.count {
            self.queue.removeAll(keepingCapacity: true)
        } else {
            self.queue.removeFirst(taken)
        }
        self.writerActive = true
        if batch.closes {
            self.state = .closed
            self.queue = []
        } else if self.state == .idle {
            self.state = .sending
        }
        return batch
    }
}
