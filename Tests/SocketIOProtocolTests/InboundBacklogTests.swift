import SocketIOProtocol
import Testing

/// The handleQueue backlog's bound, without I/O: reading pauses at the bound and resumes at
/// the low mark, once each way.
@Suite struct InboundBacklogTests {
    @Test func readingPausesAtTheBoundAndResumesAtHalf() {
        var backlog = InboundBacklog(pauseAt: 8)
        #expect(backlog.resumeAt == 4)
        var changes: [InboundBacklog.Change?] = []
        for _ in 0..<10 { changes.append(backlog.queued()) }
        // Only the 8th item pauses; the 9th and 10th find reading paused already.
        #expect(changes == [nil, nil, nil, nil, nil, nil, nil, .pauseReading, nil, nil])
        #expect(backlog.readingPaused && backlog.pending == 10 && backlog.peak == 10)

        changes = []
        for _ in 0..<6 { changes.append(backlog.ran()) }
        // 10 -> 4 waiting: the 6th run reaches the low mark.
        #expect(changes == [nil, nil, nil, nil, nil, .resumeReading])
        #expect(!backlog.readingPaused && backlog.pending == 4)
    }

    @Test func aQueueHoveringAtTheBoundDoesNotToggleReading() {
        var backlog = InboundBacklog(pauseAt: 8)
        for _ in 0..<8 { _ = backlog.queued() }
        #expect(backlog.readingPaused)
        var changes: [InboundBacklog.Change?] = []
        for _ in 0..<20 {
            changes.append(backlog.ran())
            changes.append(backlog.queued())
        }
        #expect(changes.allSatisfy { $0 == nil })
        #expect(backlog.readingPaused && backlog.pending == 8 && backlog.peak == 8)
    }

    @Test func aPauseAndResumeCycleRepeats() {
        var backlog = InboundBacklog(pauseAt: 2, resumeAt: 0)
        for _ in 0..<3 {
            #expect(backlog.queued() == nil)
            #expect(backlog.queued() == .pauseReading)
            #expect(backlog.ran() == nil)
            #expect(backlog.ran() == .resumeReading)
        }
        #expect(backlog.ran() == nil && backlog.pending == 0)
    }

    @Test func theMarksAreClampedToAWorkingPair() {
        let zero = InboundBacklog(pauseAt: 0, resumeAt: 5)
        #expect(zero.pauseAt == 1 && zero.resumeAt == 0)
        let inverted = InboundBacklog(pauseAt: 10, resumeAt: 50)
        #expect(inverted.resumeAt == 9)
        #expect(InboundBacklog().pauseAt == 1024 && InboundBacklog().resumeAt == 512)
    }

    /// Streams of the async API: reading stops when the first falls behind and resumes only
    /// when the last catches up (the slowest governs); a stream that catches up twice (a
    /// driver bug) cannot resume reading for another.
    @Test func theSlowestConsumerGovernsReading() {
        var backlog = InboundBacklog(pauseAt: 8)
        #expect(backlog.consumerFellBehind() == .pauseReading)
        #expect(backlog.consumerFellBehind() == nil)
        #expect(backlog.readingPaused && backlog.consumersBehind == 2)
        #expect(backlog.consumerCaughtUp() == nil)
        #expect(backlog.readingPaused)
        #expect(backlog.consumerCaughtUp() == .resumeReading)
        #expect(backlog.consumerCaughtUp() == nil)
        #expect(!backlog.readingPaused && backlog.consumersBehind == 0)
    }

    /// An awaited ack lets reading go on while a stream is behind (its consumer may be the
    /// one waiting for that ack); once the last ack settles, the stream holds reading again.
    @Test func anAwaitedAckKeepsReadingWhileAStreamIsBehind() {
        var backlog = InboundBacklog(pauseAt: 8)
        #expect(backlog.consumerFellBehind() == .pauseReading)
        #expect(backlog.ackAwaited() == .resumeReading)
        #expect(backlog.ackAwaited() == nil)
        #expect(!backlog.readingPaused && backlog.acksAwaited == 2)
        #expect(backlog.ackSettled() == nil)
        #expect(backlog.ackSettled() == .pauseReading)
        #expect(backlog.consumerCaughtUp() == .resumeReading)
        // With no stream behind, acks change nothing.
        #expect(backlog.ackAwaited() == nil)
        #expect(backlog.ackSettled() == nil)
        #expect(backlog.ackSettled() == nil)
        #expect(backlog.acksAwaited == 0)
    }

    /// A stream far behind (its hard bound) stops the reading even while an ack is awaited:
    /// a server that withholds the ack cannot grow the stream without bound.
    @Test func aStreamFarBehindHoldsReadingEvenForAnAwaitedAck() {
        var backlog = InboundBacklog(pauseAt: 8)
        #expect(backlog.ackAwaited() == nil)
        #expect(backlog.consumerFellBehind() == nil)
        #expect(!backlog.readingPaused)
        #expect(backlog.consumerFellFarBehind() == .pauseReading)
        #expect(backlog.ackAwaited() == nil)
        #expect(backlog.readingPaused && backlog.consumersFarBehind == 1)
        // Drained to half: both reports come, and the awaited acks let reading go on again.
        #expect(backlog.consumerNoLongerFarBehind() == .resumeReading)
        #expect(backlog.consumerCaughtUp() == nil)
        #expect(!backlog.readingPaused && backlog.consumersFarBehind == 0)
        #expect(backlog.consumerNoLongerFarBehind() == nil)
        #expect(backlog.consumersFarBehind == 0)
    }

    /// A full `handleQueue` holds reading even while an ack is awaited (its handlers must run
    /// first; the ack's answer is among the queued work), and a stream behind keeps it paused
    /// after the queue drained.
    @Test func theQueueAndTheStreamsHoldReadingTogether() {
        var backlog = InboundBacklog(pauseAt: 2, resumeAt: 0)
        #expect(backlog.ackAwaited() == nil)
        #expect(backlog.queued() == nil)
        #expect(backlog.queued() == .pauseReading)
        #expect(backlog.consumerFellBehind() == nil)
        #expect(backlog.ackSettled() == nil)
        #expect(backlog.ran() == nil)
        #expect(backlog.ran() == nil)  // the queue is empty, the stream is still behind
        #expect(backlog.readingPaused)
        #expect(backlog.consumerCaughtUp() == .resumeReading)
    }
}
