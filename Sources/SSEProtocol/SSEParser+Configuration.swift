extension SSEParser {
    /// Limits and options of an ``SSEParser``.
    package struct Configuration: Sendable, Hashable {
        /// The longest line (field, comment or unknown line, without its terminator) accepted;
        /// a longer one fails with ``SSEParserError/lineTooLong(limit:)``.
        package var maximumLineLength: Int
        /// The largest data buffer (the `data` values of one event joined with LF) accepted;
        /// a larger one fails with ``SSEParserError/eventTooLarge(limit:)``.
        package var maximumEventSize: Int
        /// Whether comment lines (`: text`) are reported as ``SSEParser/Output/comment(_:)``.
        /// Off by default: unreported comments cost no decoding and no buffering.
        package var reportsComments: Bool
        /// Whether a block that ends without a `data` field but had another field line (`event`,
        /// `id`, `retry` or an unknown one) is reported too, as an ``SSEEvent`` whose
        /// ``SSEEvent/hasData`` is `false`. WHATWG dispatches no such event (off by default);
        /// `ServerEvent.parse(from:)` reads one block whatever it holds, as Recouse's does.
        package var dispatchesBlocksWithoutData: Bool

        /// 16 MiB lines and events, comments not reported.
        package init(
            maximumLineLength: Int = 16 << 20,
            maximumEventSize: Int = 16 << 20,
            reportsComments: Bool = false,
            dispatchesBlocksWithoutData: Bool = false
        ) {
            self.maximumLineLength = maximumLineLength
            self.maximumEventSize = maximumEventSize
            self.reportsComments = reportsComments
            self.dispatchesBlocksWithoutData = dispatchesBlocksWithoutData
        }
    }

    /// What one step of parsing produced, in stream order.
    package enum Output: Sendable, Hashable {
        /// A dispatched event (only events whose data buffer was not empty).
        case event(SSEEvent)
        /// A comment line's text after the colon, one leading space removed
        /// (only with ``Configuration/reportsComments``).
        case comment(String)
        /// A `retry` field made only of ASCII digits: the reconnection time in milliseconds
        /// (saturating at `Int.max`).
        case retry(Int)
    }
}
