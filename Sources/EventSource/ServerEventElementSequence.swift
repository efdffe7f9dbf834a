/// The events, comment lines and `retry:` fields of a byte sequence read as an event stream:
/// what `serverSentEvents(including:maximumEventSize:)` returns.
///
/// The same parsing, limits and errors as ``ServerEventSequence``, with the elements of
/// ``EventSource/DataTask/events(including:)``: each ``EventSource/StreamElement`` holds an
/// event (as ``EventSource/EventType/event(_:)`` with a ``ServerEvent``), a comment's text
/// (with ``EventSource/Extras/comments``) or a `retry:` field (with
/// ``EventSource/Extras/retry``), in stream order. There are no `.open`, `.error` or `.closed`
/// elements: the sequence throws its errors and ends with its base.
///
/// ```swift
/// for try await element in body.serverSentEvents(including: [.comments, .retry]) {
///     if let comment = element.comment {
///         print("comment:", comment)
///     } else if let retry = element.retryInterval {
///         print("retry after", retry, "s")
///     } else if case .event(let event)? = element.event {
///         print(event.data ?? "")
///     }
/// }
/// ```
///
/// - Important: Errors as ``ServerEventSequence``: ``EventStreamLimitError`` for an event or
///   line over the limit, the base sequence's errors as they are; `nil` afterwards.
public struct ServerEventElementSequence<Base: AsyncSequence>: AsyncSequence {
    /// The elements: events, comments and `retry:` fields.
    public typealias Element = EventSource.StreamElement

    let base: Base
    let reader: ByteChunkReader<Base.AsyncIterator>
    let extras: EventSource.Extras
    let maximumEventSize: Int
    let terminator: EventSource.Terminator?

    @usableFromInline
    init(
        base: Base, reader: ByteChunkReader<Base.AsyncIterator>, extras: EventSource.Extras, maximumEventSize: Int,
        terminator: EventSource.Terminator?
    ) {
        self.base = base
        self.reader = reader
        self.extras = extras
        self.maximumEventSize = maximumEventSize
        self.terminator = terminator
    }

    /// Makes an iterator that reads a new iterator of the base sequence.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: self.base.makeAsyncIterator(), reader: self.reader,
            parser: ByteStreamEventParser(maximumEventSize: self.maximumEventSize, extras: self.extras, terminator: self.terminator))
    }

    /// Iterates a ``ServerEventElementSequence``: reads the base sequence only while it is
    /// asked for the next element.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The elements: events, comments and `retry:` fields.
        public typealias Element = EventSource.StreamElement

        private var outputs: ByteStreamOutputs<Base.AsyncIterator>

        init(base: Base.AsyncIterator, reader: ByteChunkReader<Base.AsyncIterator>, parser: ByteStreamEventParser) {
            self.outputs = ByteStreamOutputs(base: base, reader: reader, parser: parser)
        }

        /// The next element; `nil` at the end of the bytes (an unfinished event is dropped), at
        /// the terminator (without reading further), and after an error.
        ///
        /// - Throws: ``EventStreamLimitError`` for an event or line over the limit; the base
        ///   sequence's errors.
        public mutating func next() async throws -> EventSource.StreamElement? {
            switch try await self.outputs.next() {
            case .event(let event)?: return EventSource.StreamElement(event: .event(event))
            case .comment(let text)?: return EventSource.StreamElement(.comment(text))
            case .retry(let milliseconds)?: return EventSource.StreamElement(.retry(milliseconds))
            case nil: return nil
            }
        }
    }
}

// @unchecked: besides the base, the sequence holds its limits and a `ByteChunkReader`, a
// function of the base's iterator that captures nothing.
extension ServerEventElementSequence: @unchecked Sendable where Base: Sendable {}
