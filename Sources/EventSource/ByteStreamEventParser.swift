public import Foundation
import SSEProtocol

/// The parsing behind `serverSentEvents()` on a byte sequence: the ``SSEParser`` a
/// ``EventSource/DataTask`` runs in ``EventSource/Mode/default`` mode, with its limits, and
/// the outputs of one chunk kept until they are taken.
///
/// - Important: A value owned by one iterator; no locks.
struct ByteStreamEventParser {
    /// What one chunk produced, in stream order.
    enum Output {
        case event(ServerEvent)
        case comment(String)
        case retry(Int)
    }

    private var parser: SSEParser
    private let maximumEventSize: Int
    private let reportsRetry: Bool
    /// Outputs of the last chunk not taken yet (taken ones are `nil`).
    private var pending: [Output?] = []
    private var head = 0
    private let terminator: EventSource.Terminator?
    /// The terminator arrived: nothing after it is reported, and no more bytes are needed.
    private(set) var isTerminated = false

    /// - Parameters:
    ///   - maximumEventSize: the largest event accepted, as ``EventSource/maximumEventSize``.
    ///   - extras: the comments and `retry:` fields to report besides the events.
    ///   - terminator: the event that ends the stream, not reported.
    init(maximumEventSize: Int, extras: EventSource.Extras = [], terminator: EventSource.Terminator? = nil) {
        self.maximumEventSize = maximumEventSize
        self.terminator = terminator
        self.reportsRetry = extras.contains(.retry)
        self.parser = SSEParser(
            configuration: SSEParser.Configuration(
                maximumLineLength: EventDecoder.lineLimit(forEventSize: maximumEventSize),
                maximumEventSize: maximumEventSize,
                reportsComments: extras.contains(.comments)))
    }

    /// The stream's last event ID after the events parsed so far (WHATWG rules: it persists
    /// across events until an `id` field changes it).
    var lastEventId: String { self.parser.lastEventId }

    /// Parses the next bytes of the stream.
    ///
    /// - Throws: ``EventStreamLimitError`` when an event or a line is too large, as a data
    ///   task reports it. Outputs before the error can still be taken.
    mutating func feed(_ chunk: [UInt8]) throws(EventStreamLimitError) {
        let reportsRetry = self.reportsRetry
        let terminator = self.terminator
        guard !self.isTerminated else { return }
        do {
            try self.parser.feed(
                chunk,
                events: { event in
                    guard !self.isTerminated else { return }
                    if let terminator, terminator.matches(type: event.type, data: event.data) {
                        self.isTerminated = true
                        return
                    }
                    self.pending.append(.event(ServerEvent(taking: &event)))
                },
                { output in
                    guard !self.isTerminated else { return }
                    switch output {
                    case .event: break  // events come through `events:`
                    case .comment(let text): self.pending.append(.comment(text))
                    case .retry(let milliseconds): if reportsRetry { self.pending.append(.retry(milliseconds)) }
                    }
                })
        } catch {
            throw EventStreamLimitError(error, maximumEventSize: self.maximumEventSize)
        }
    }

    /// The next output not taken yet, or `nil` when the chunks fed so far gave no more.
    @inline(__always)
    mutating func next() -> Output? {
        if self.head < self.pending.count {
            defer { self.head += 1 }
            return self.pending[self.head].take()
        }
        if self.head > 0 {
            self.pending.removeAll(keepingCapacity: self.pending.capacity <= 4096)
            self.head = 0
        }
        return nil
    }
}

/// Reads a byte sequence's elements as the chunks an ``SSEParser`` is fed: arrays as they
/// come, `Data` and slices copied into arrays, and single bytes gathered up to a line end.
///
/// Not `Sendable` (a `@Sendable` closure calling a generic iterator captures its metatype),
/// but each reader is a function of the iterator alone that captures nothing: the sequences
/// holding one are `@unchecked Sendable` when their base is `Sendable`.
///
/// Inlinable, so each reader is specialized for the caller's iterator: a `UInt8` sequence
/// (such as `URLSession.AsyncBytes`) is then read without a generic call per byte.
@usableFromInline
struct ByteChunkReader<Iterator: AsyncIteratorProtocol> {
    /// The next chunk, or `nil` at the end of the sequence; rethrows the sequence's errors.
    @usableFromInline let read: (inout Iterator) async throws -> [UInt8]?

    @inlinable
    init(_ read: @escaping (inout Iterator) async throws -> [UInt8]?) {
        self.read = read
    }
}

extension ByteChunkReader where Iterator.Element == UInt8 {
    /// Single bytes are gathered until a CR or LF (the parser then has a whole line, so an
    /// event is yielded as soon as its empty line is read) or ``byteGatherLimit`` bytes.
    @inlinable
    static var bytes: ByteChunkReader {
        ByteChunkReader { iterator in
            var chunk: [UInt8] = []
            while let byte = try await iterator.next() {
                chunk.append(byte)
                if byte == 0x0A || byte == 0x0D || chunk.count >= byteGatherLimit { return chunk }
            }
            return chunk.isEmpty ? nil : chunk
        }
    }

    /// The most single bytes gathered into one chunk before it is parsed.
    @inlinable
    static var byteGatherLimit: Int { 16 << 10 }
}

extension ByteChunkReader where Iterator.Element == [UInt8] {
    /// Arrays as they come (large `data` values then stay in them until dispatch, uncopied).
    @inlinable
    static var arrays: ByteChunkReader {
        ByteChunkReader { iterator in try await iterator.next() }
    }
}

extension ByteChunkReader where Iterator.Element == ArraySlice<UInt8> {
    /// Each slice copied into an array.
    @inlinable
    static var slices: ByteChunkReader {
        ByteChunkReader { iterator in try await iterator.next().map { Array($0) } }
    }
}

extension ByteChunkReader where Iterator.Element == Data {
    /// Each `Data` copied into an array.
    @inlinable
    static var data: ByteChunkReader {
        ByteChunkReader { iterator in try await iterator.next().map { [UInt8]($0) } }
    }
}
