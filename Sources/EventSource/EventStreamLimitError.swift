import SSEProtocol

/// The server sent an event or a line larger than ``EventSource/maximumEventSize``: the
/// connection is closed instead of buffering without bound.
public struct EventStreamLimitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The limit that was exceeded, in bytes.
    public var limit: Int
    /// What exceeded it.
    public var description: String
}

extension EventStreamLimitError {
    /// The error a stream whose events may be `maximumEventSize` bytes reports when its
    /// parser refused the input: the same for a ``EventSource/DataTask`` and a byte sequence's
    /// `serverSentEvents()`.
    init(_ error: SSEParserError, maximumEventSize: Int) {
        self.init(limit: maximumEventSize, description: "\(error)")
    }
}
