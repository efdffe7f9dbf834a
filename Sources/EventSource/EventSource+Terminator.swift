extension EventSource {
    /// The event that ends a finite stream, such as the `data: [DONE]` after an LLM API's
    /// last chunk: the stream ends cleanly there instead of waiting for the server to close.
    ///
    /// When an event matches, it is not delivered: a data task closes its connection and
    /// delivers `.closed` (never reconnecting, whatever its ``ReconnectionPolicy``), and a byte
    /// sequence's `serverSentEvents(maximumEventSize:terminator:)` ends without reading further.
    /// Events before it in the same chunk are delivered; anything after it is ignored. The
    /// match is exact: a data line that only contains the terminator's text (`[DONE] soon`) is
    /// an ordinary event.
    ///
    /// ```swift
    /// var eventSource = EventSource()
    /// eventSource.terminator = .data("[DONE]")          // OpenAI-style APIs
    /// eventSource.terminator = .eventType("message_stop")  // an API that names its last event
    /// ```
    ///
    /// A struct rather than an enum, so more kinds of terminators can come without breaking
    /// code that uses these.
    public struct Terminator: Sendable, Hashable {
        private enum Kind: Sendable, Hashable {
            case data(String)
            case eventType(String)
        }

        private let kind: Kind

        /// The event whose data is exactly `text` (its `data` values joined with LF).
        public static func data(_ text: String) -> Terminator {
            Terminator(kind: .data(text))
        }

        /// The first event whose type (the `event` field) is exactly `type`.
        public static func eventType(_ type: String) -> Terminator {
            Terminator(kind: .eventType(type))
        }

        /// Whether `event` is the terminator.
        func matches(_ event: any EVEvent) -> Bool {
            switch self.kind {
            case .data(let text): event.data == text
            case .eventType(let type): event.event == type
            }
        }

        /// Whether an event with these fields is the terminator (the parser's output, before a
        /// ``ServerEvent`` is made of it).
        func matches(type: String?, data: String) -> Bool {
            switch self.kind {
            case .data(let text): data == text
            case .eventType(let name): type == name
            }
        }
    }
}
