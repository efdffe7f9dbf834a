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
///
/// Bounded: the frames waiting behind the writer's batch total at most ``maximumQueuedBytes``
/// and ``maximumQueuedFrames``. The owner asks ``checkRoom(forBytes:frames:)`` before it hands
/// an application write to the protocol machine, in the same critical section, and refuses
/// the write with ``EngineBufferOverflow`` when there is no room. ``enqueue(_:)`` itself
/// never refuses (the machine's control frames, a pong or the close, must go out), so the
/// bound can be passed by the control frames and the writes already checked but not yet
/// enqueued: at most one write per thread. A pong is the one control frame a server can ask
/// for at will (one per ping), so a pong is dropped while another still waits in the queue:
/// one pong answers every ping before it, and a server that pings without reading cannot
/// grow the queue.
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

    /// 16 MiB of frames waiting behind one socket write.
    package static let defaultMaximumQueuedBytes = 16 << 20
    /// 262,144 frames waiting behind one socket write.
    package static let defaultMaximumQueuedFrames = 1 << 18

    package private(set) var state: State = .idle
    private var queue: [Entry] = []
    /// `true` while a writer holds a batch (in `sending` and `draining`).
    private var writerActive = false
    /// `true` while a pong waits in ``queue`` (not yet in a writer's batch).
    private var pongQueued = false
    /// The payload bytes and frames of ``queue``.
    package private(set) var queuedBytes = 0
    package private(set) var queuedFrames = 0
    /// The bounds ``checkRoom(forBytes:frames:)`` enforces.
    package let maximumQueuedBytes: Int
    package let maximumQueuedFrames: Int

    package init(
        maximumQueuedBytes: Int = EngineWebSocketSendQueue.defaultMaximumQueuedBytes,
        maximumQueuedFrames: Int = EngineWebSocketSendQueue.defaultMaximumQueuedFrames
    ) {
        self.maximumQueuedBytes = max(1, maximumQueuedBytes)
        self.maximumQueuedFrames = max(1, maximumQueuedFrames)
    }

    /// Entries waiting behind the writer's batch.
    package var queuedCount: Int { self.queue.count }

    /// More than half of either bound is taken: a writer that can wait (the async `emit`)
    /// waits for room before it adds more (see `EngineClientStateMachine.isCrowded`).
    package var isCrowded: Bool {
        self.queuedBytes > self.maximumQueuedBytes / 2 || self.queuedFrames > self.maximumQueuedFrames / 2
    }

    /// Throws unless a write of `bytes` payload bytes in `frames` frames fits beside what is
    /// queued. Nothing is queued when no writer is at work (the write goes out at once), so
    /// such a write always fits.
    ///
    /// - Throws: ``EngineBufferOverflow`` (``EngineBufferOverflow/Buffer/webSocketSendQueue``).
    package func checkRoom(forBytes bytes: Int, frames: Int) throws(EngineBufferOverflow) {
        guard self.writerActive else { return }
        if self.queuedBytes + bytes > self.maximumQueuedBytes || self.queuedFrames + frames > self.maximumQueuedFrames {
            throw EngineBufferOverflow(
                buffer: .webSocketSendQueue, bufferedBytes: self.queuedBytes, bufferedPackets: self.queuedFrames,
                writeBytes: bytes, writePackets: frames, maximumBytes: self.maximumQueuedBytes,
                maximumPackets: self.maximumQueuedFrames)
        }
    }

    /// The payload length of `packet` as a WebSocket frame: its bytes for binary, the type
    /// digit and text otherwise (what ``checkRoom(forBytes:frames:)`` counts).
    package static func frameLength(of packet: EnginePacket) -> Int {
        if case .binaryMessage(let bytes) = packet { return bytes.count }
        return 1 + (packet.textData?.utf8.count ?? 0)
    }

    private static func frameLength(of frame: EngineWebSocketFrame) -> Int {
        switch frame {
        case .text(let text): return text.utf8.count
        case .binary(let bytes): return bytes.count
        }
    }

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
            if Self.isPong(entry) {
                // A pong waits only behind a writer's batch, so the writer takes the first.
                if self.pongQueued { return nil }
                self.pongQueued = true
            }
            self.queue.append(entry)
            switch entry {
            case .frames(let frames, _):
                self.queuedFrames += frames.count
                for frame in frames { self.queuedBytes += Self.frameLength(of: frame) }
            case .close:
                self.state = .draining
            }
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
        self.queuedBytes = 0
        self.queuedFrames = 0
        self.pongQueued = false
        self.state = .closed
        return dropped
    }

    /// Whether `entry` is one Engine.IO pong (`3`, and any data the ping had), no write's.
    private static func isPong(_ entry: Entry) -> Bool {
        guard case .frames(let frames, nil) = entry, frames.count == 1, case .text(let text) = frames[0] else { return false }
        return text.utf8.first == UInt8(ascii: "3")
    }

    /// Everything queued, up to and including the first close.
    private mutating func takeBatch() -> Batch? {
        guard !self.queue.isEmpty else { return nil }
        // The batch takes every pong queued (what stays behind a close is dropped).
        self.pongQueued = false
        var batch = Batch(frames: [])
        var taken = 0
        for entry in self.queue {
            taken += 1
            switch entry {
            case .frames(let frames, let writeID):
                // The first entry's frames are taken as they are (no copy, no allocation):
                // a batch is most often one emit's.
                if batch.frames.isEmpty { batch.frames = frames } else { batch.frames += frames }
                self.queuedFrames -= frames.count
                for frame in frames { self.queuedBytes -= Self.frameLength(of: frame) }
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
            self.queuedBytes = 0
            self.queuedFrames = 0
        } else if self.state == .idle {
            self.state = .sending
        }
        return batch
    }
}
