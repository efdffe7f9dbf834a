/// The work a manager has queued on its `handleQueue` and not run yet, and the rule that
/// bounds it: past ``pauseAt`` queued items the engine stops reading from the network, and it
/// reads again once the queue is down to ``resumeAt`` (hysteresis, so a queue hovering at the
/// bound does not toggle reading on every item).
///
/// An application whose `handleQueue` is busy (the main queue during a long layout, a handler
/// that blocks) no longer makes the client buffer everything the server sends meanwhile: the
/// bytes wait in the kernel's socket buffer and then in the server, as TCP backpressure
/// intends. Sans-I/O: the manager feeds ``queued()`` and ``ran()`` and applies the change.
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
    /// Whether the driver was told to stop reading (and not told to resume since).
    package private(set) var readingPaused = false
    /// The most items that ever waited at once (what a test checks the bound against).
    package private(set) var peak = 0

    /// - Parameters:
    ///   - pauseAt: at least 1.
    ///   - resumeAt: below `pauseAt`; default half of it.
    package init(pauseAt: Int = InboundBacklog.defaultPauseAt, resumeAt: Int? = nil) {
        self.pauseAt = max(1, pauseAt)
        self.resumeAt = max(0, min(resumeAt ?? self.pauseAt / 2, self.pauseAt - 1))
    }

    /// One item was queued.
    /// - Returns: ``Change/pauseReading`` when this item reached ``pauseAt``.
    package mutating func queued() -> Change? {
        self.pending += 1
        self.peak = max(self.peak, self.pending)
        guard !self.readingPaused, self.pending >= self.pauseAt else { return nil }
        self.readingPaused = true
        return .pauseReading
    }

    /// One queued item ran.
    /// - Returns: ``Change/resumeReading`` when reading was paused and the queue is down to
    ///   ``resumeAt``.
    package mutating func ran() -> Change? {
        self.pending = max(0, self.pending - 1)
        guard self.readingPaused, self.pending <= self.resumeAt else { return nil }
        self.readingPaused = false
        return .resumeReading
    }
}
