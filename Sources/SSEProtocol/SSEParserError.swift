/// Why an ``SSEParser`` refused its input.
///
/// Both cases bound the memory a hostile or broken server can make the parser hold: the
/// parser fails instead of buffering without end. After an error the parser stays failed
/// (every later ``SSEParser/feed(_:_:)`` throws the same error) until ``SSEParser/reset()``.
package enum SSEParserError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line (of any kind: field, comment or unknown) grew past `limit` bytes before its
    /// line terminator arrived.
    case lineTooLong(limit: Int)
    /// The data buffer of one event (its `data` values joined with LF) grew past `limit` bytes.
    case eventTooLarge(limit: Int)

    package var description: String {
        switch self {
        case .lineTooLong(let limit): "event-stream line longer than \(limit) bytes"
        case .eventTooLarge(let limit): "event-stream event data larger than \(limit) bytes"
        }
    }
}
