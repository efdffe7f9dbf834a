/// The server sent an event or a line larger than ``EventSource/maximumEventSize``: the
/// connection is closed instead of buffering without bound.
public struct EventStreamLimitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The limit that was exceeded, in bytes.
    public var limit: Int
    /// What exceeded it.
    public var description: String
}
