/// What holds the engine's reading back, and the rules that decide it.
///
/// Two kinds of consumer can fall behind the network:
/// - the work a manager has queued on its `handleQueue` and not run yet: past ``pauseAt``
///   queued items the engine stops reading, and it reads again once the queue is down to
///   ``resumeAt`` (hysteresis, so a queue hovering at the bound does not toggle reading on
///   every item);
/// - the async streams of SocketIOConcurrency: a stream whose buffer reaches its bound reports
///   that it ``consumerFellBehind()``, and ``consumerCaughtUp()`` once its consumer drained it
///   to half. Reading stops while any stream is behind: the slowest consumer governs, as
///   with TCP.
///
/// A stream's consumer may itself wait for an ack the server sends behind the events it has
/// not read yet (an awaited `emitWithAck` inside a `for await` loop). So while any awaited ack
/// is outstanding (``ackAwaited()`` / ``ackSettled()``), behind streams do not stop the reading:
/// the stream keeps buffering for that round trip instead of the two waiting on each other.
/// Up to a hard bound: a stream that reports it is far behind (``consumerFellFarBehind()``,
/// 16 times its bound) stops the reading even then, so a server that withholds an ack while it
/// floods a stream cannot grow the stream's buffer until the ack's timeout. The ack then
/// waits for the reading like anything else, and may time out.
///
/// An application whose `handleQueue` is busy or whose loop is slow no longer makes the client
/// buffer everything the server sends meanwhile: the bytes wait in the kernel's socket buffer
/// and then in the server, as TCP backpressure intends. Sans-I/O: the manager feeds the inputs;
/// the engine's readers ask ``readingPaused`` before each read, and the manager resumes the
/// ones that wait on ``Change/resumeReading``.
package struct InboundBacklog: Sendable, Hashable {
    /// What the driver does to the engine's reading.
    package enum Change: Sendable, Hashable {
        case pauseReading
        case resumeReading
    }

    /// 1,024 queued items: more than a burst of handler work, far less memory than an
    /// unbounded flood. Each item is one packet's handlers or one client event.
    package static let defaultPauseAt = 1024

    /// Reading stops once this many items wait.
    package let pauseAt: Int
    /// Reading resumes once no more than this many items wait (below ``pauseAt``).
    package let resumeAt: Int
    /// Items queued and not run yet.
    package private(set) var pending = 0
    /// The most items that ever waited at once (what a test checks the bound against).
    package private(set) var peak = 0
    /// Streams whose buffer reached their bound and was not drained to half since.
    package private(set) var consumersBehind = 0
    /// Awaited acks not settled yet.
    package private(set) var acksAwaited = 0
    /// Streams whose buffer reached their hard bound and was not drained to half since: they
    /// stop the reading whatever waits for an ack.
    package private(set) var consumersFarBehind = 0
    /// The queue reached ``pauseAt`` and did not come down to ``resumeAt`` since.
    private var queueOverBound = false

    /// Whether the driver was told to stop reading (and not told to resume since).
    package var readingPaused: Bool {
        self.queueOverBound || self.consumersFarBehind > 0 || (self.consumersBehind > 0 && self.acksAwaited == 0)
    }

    /// - Parameters:
    ///   - pauseAt: at least 1.
    ///   - resumeAt: below `pauseAt`; default half of it.
    package init(pauseAt: Int = InboundBacklog.defaultPauseAt, resumeAt: Int? = nil) {
        self.pauseAt = max(1, pauseAt)
        self.resumeAt = max(0, min(resumeAt ?? self.pauseAt / 2, self.pauseAt - 1))
    }

    // MARK: Inputs

    /// One item was queued.
    /// - Returns: ``Change/pauseReading`` when this item reached ``pauseAt``.
    package mutating func queued() -> Change? {
        self.changing { backlog in
            backlog.pending += 1
            backlog.peak = max(backlog.peak, backlog.pending)
            if backlog.pending >= backlog.pauseAt { backlog.queueOverBound = true }
        }
    }

    /// One queued item ran.
    /// - Returns: ``Change/resumeReading`` when reading was paused and the queue is down to
    ///   ``resumeAt`` (and no stream is behind).
    package mutating func ran() -> Change? {
        self.changing { backlog in
            backlog.pending = max(0, backlog.pending - 1)
            if backlog.pending <= backlog.resumeAt { backlog.queueOverBound = false }
        }
    }

    /// A stream's buffer reached its bound.
    package mutating func consumerFellBehind() -> Change? {
        self.changing { $0.consumersBehind += 1 }
    }

    /// A stream that was behind was drained to half its bound, or ended.
    package mutating func consumerCaughtUp() -> Change? {
        self.changing { $0.consumersBehind = max(0, $0.consumersBehind - 1) }
    }

    /// A stream's buffer reached its hard bound (it reported ``consumerFellBehind()`` before).
    package mutating func consumerFellFarBehind() -> Change? {
        self.changing { $0.consumersFarBehind += 1 }
    }

    /// A stream that was far behind was drained to half its bound, or ended (it reports
    /// ``consumerCaughtUp()`` too).
    package mutating func consumerNoLongerFarBehind() -> Change? {
        self.changing { $0.consumersFarBehind = max(0, $0.consumersFarBehind - 1) }
    }

    /// An awaited ack was asked for: reading goes on until it is settled.
    package mutating func ackAwaited() -> Change? {
        self.changing { $0.acksAwaited += 1 }
    }

    /// An awaited ack arrived, timed out or was given up.
    package mutating func ackSettled() -> Change? {
        self.changing { $0.acksAwaited = max(0, $0.acksAwaited - 1) }
    }

    /// Applies `update`, and returns the change to reading it caused, if any.
    private mutating func changing(_ update: (inout Self) -> Void) -> Change? {
        let wasPaused = self.readingPaused
        update(&self)
        switch (wasPaused, self.readingPaused) {
        case (false, true): return .pauseReading
        case (true, false): return .resumeReading
        default: return nil
        }
    }
}
