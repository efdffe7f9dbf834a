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

        private var base: Base.AsyncIterator
        private let reader: ByteChunkReader<Base.AsyncIterator>
        private var parser: ByteStreamEventParser
        private var finished = false
        /// The parser's error, thrown once the outputs before it are taken.
        private var failure: EventStreamLimitError?

        init(base: Base.AsyncIterator, reader: ByteChunkReader<Base.AsyncIterator>, parser: ByteStreamEventParser) {
            self.base = base
            self.reader = reader
            self.parser = parser
        }

        /// The next element; `nil` at the end of the bytes (an unfinished event is dropped), at
        /// the terminator (without reading further), and after an error.
        ///
        /// - Throws: ``EventStreamLimitError`` for an event or line over the limit; the base
        ///   sequence's errors.
        public mutating func next() async throws -> EventSource.StreamElement? {
            while true {
                if let output = self.parser.next() {
                    switch output {
                    case .event(let event): return EventSource.StreamElement(event: .event(event))
                    case .comment(let text): return EventSource.StreamElement(.comment(text))
                    case .retry(let milliseconds): return EventSource.StreamElement(.retry(milliseconds))
                    }
                }
                if let failure = self.failure {
                    self.failure = nil
                    throw failure
                }
                guard !self.finished, !self.parser.isTerminated else { return nil }
                let chunk: [UInt8]?
                do {
                    chunk = try await self.reader.read(&self.base)
                } catch {
                    self.finished = true
                    throw error
                }
                guard let chunk else {
                    self.finished = true
                    return nil
                }
                do {
                    try self.parser.feed(chunk)
                } catch {
                    // Events before the error in this chunk come first.
                    self.finished = true
                    self.failure = error
                }
            }
        }
    }
}

// @unchecked: besides the base, the sequence holds its limits and a `ByteChunkReader`, a
// function of the base's iterator that captures nothing.
extension ServerEventElementSequence: @unchecked Sendable where Base: Sendable {}
