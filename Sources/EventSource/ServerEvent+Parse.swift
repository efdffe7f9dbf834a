public import Foundation
import SSEProtocol

extension ServerEvent {
    /// Parses one event from complete event-stream text, without a connection.
    ///
    /// `data` is read as one event block: blank lines before it are skipped, the block ends
    /// at the first empty line (later text is ignored) or at the end of `data`. In
    /// ``EventSource/Mode/default`` mode the fields follow the WHATWG rules (`data` lines
    /// joined with LF, one space after the colon removed, `id` with U+0000 ignored, comments
    /// and unknown fields skipped), read by the same parser as a ``EventSource/DataTask``'s
    /// stream and of `serverSentEvents()` on a byte sequence; unlike a stream, a
    /// block without `data` still gives its `event` and `id`. In ``EventSource/Mode/dataOnly``
    /// mode the block is read whole (see ``EventSource/Mode/dataOnly``).
    ///
    /// ```swift
    /// let event = ServerEvent.parse(from: Data("event: add\ndata: 1\n\n".utf8))
    /// // event?.event == "add", event?.data == "1"
    /// ```
    ///
    /// - Returns: the event, or `nil` when the block gives an event whose fields are all empty.
    public static func parse(from data: Data, mode: EventSource.Mode = .default) -> ServerEvent? {
        // The block ends at the end of `data` too: a line terminator and an empty line follow.
        let bytes = [UInt8](data)
        let end: [UInt8] = [0x0A, 0x0A]
        var first: ServerEvent??
        switch mode {
        case .default:
            let configuration = SSEParser.Configuration(
                maximumLineLength: .max, maximumEventSize: .max, dispatchesBlocksWithoutData: true)
            var parser = SSEParser(configuration: configuration)
            let take = { (event: inout SSEEvent) in
                guard first == nil else { return }
                let parsed = ServerEvent(taking: &event)
                first = .some(parsed.isEmpty ? nil : parsed)
            }
            // Without limits the parser cannot fail; retries and comments are not asked for.
            try? parser.feed(bytes, events: take) { _ in }
            if first == nil { try? parser.feed(end, events: take) { _ in } }
        case .dataOnly:
            var parser = DataOnlyEventParser(maximumEventSize: .max - 64)
            let take = { (event: ServerEvent?) in
                if first == nil { first = .some(event) }
            }
            try? parser.feedBlocks(bytes, take)
            if first == nil { try? parser.feedBlocks(end, take) }
        }
        return first ?? nil
    }
}
