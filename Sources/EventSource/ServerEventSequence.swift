/// The events of a byte sequence read as an event stream: what `serverSentEvents()` returns.
///
/// Made by `serverSentEvents(maximumEventSize:terminator:)` on an `AsyncSequence` of bytes (`UInt8`) or
/// byte chunks (`[UInt8]`, `ArraySlice<UInt8>`, `Data`): a file, `URLSession.bytes(for:)` on
/// Apple platforms, or any HTTP client's body. The bytes go through the parser a
/// ``EventSource/DataTask`` runs in ``EventSource/Mode/default`` mode, with the same rules and
/// limits (WHATWG HTML §9.2.5-9.2.6,
/// https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
/// - one leading byte order mark is removed; lines end at CRLF, LF or CR, also when a CR and
///   its LF arrive in different chunks; ill-formed UTF-8 becomes U+FFFD;
/// - `data` values are joined with LF, an event is yielded at the empty line that ends it,
///   comments and `retry:` are skipped (``ServerEventElementSequence`` reports them);
/// - an event not finished when the bytes end is dropped, as at the end of a response body;
/// - with a terminator (``EventSource/Terminator``), the matching event is not yielded and the
///   sequence ends there without reading further.
///
/// ```swift
/// // On Apple platforms: URLSession's own bytes.
/// let (bytes, _) = try await URLSession.shared.bytes(for: request)
/// for try await event in bytes.serverSentEvents(terminator: .data("[DONE]")) {
///     print(event.event ?? "message", event.data ?? "")
/// }
/// ```
///
/// - Important: Errors: an event larger than `maximumEventSize` bytes, or a line longer than
///   that, throws ``EventStreamLimitError`` (what a data task reports as `.error`) after the
///   events before it; an error of the base sequence is rethrown as it is. After an error or
///   the end, the iterator returns `nil`. Each iterator reads its own iterator of the base, so
///   the sequence is as unicast as its base.
public struct ServerEventSequence<Base: AsyncSequence>: AsyncSequence {
    /// The elements: the stream's events.
    public typealias Element = ServerEvent

    let base: Base
    let reader: ByteChunkReader<Base.AsyncIterator>
    let maximumEventSize: Int
    let terminator: EventSource.Terminator?

    @usableFromInline
    init(
        base: Base, reader: ByteChunkReader<Base.AsyncIterator>, maximumEventSize: Int,
        terminator: EventSource.Terminator?
    ) {
        self.base = base
        self.reader = reader
        self.maximumEventSize = maximumEventSize
        self.terminator = terminator
    }

    /// Makes an iterator that reads a new iterator of the base sequence.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: self.base.makeAsyncIterator(), reader: self.reader,
            parser: ByteStreamEventParser(maximumEventSize: self.maximumEventSize, terminator: self.terminator))
    }

    /// Iterates a ``ServerEventSequence``: reads the base sequence only while it is asked for
    /// the next event.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The elements: the stream's events.
        public typealias Element = ServerEvent

        private var outputs: ByteStreamOutputs<Base.AsyncIterator>

        init(base: Base.AsyncIterator, reader: ByteChunkReader<Base.AsyncIterator>, parser: ByteStreamEventParser) {
            self.outputs = ByteStreamOutputs(base: base, reader: reader, parser: parser)
        }

        /// The next event; `nil` at the end of the bytes (an unfinished event is dropped), at
        /// the terminator (without reading further), and after an error.
        ///
        /// - Throws: ``EventStreamLimitError`` for an event or line over the limit; the base
        ///   sequence's errors.
        public mutating func next() async throws -> ServerEvent? {
            while let output = try await self.outputs.next() {
                if case .event(let event) = output { return event }
            }
            return nil
        }
    }
}

// @unchecked: besides the base, the sequence holds its limits and a `ByteChunkReader`, a
// function of the base's iterator that captures nothing.
extension ServerEventSequence: @unchecked Sendable where Base: Sendable {}
