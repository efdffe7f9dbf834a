import Foundation
import SSEProtocol

/// Turns body chunks into ``EventSource/EventType`` values with the parser a data task was
/// configured with, and keeps the stream's last event ID.
struct EventDecoder {
    enum Kind: Sendable {
        case standard
        case dataOnly
        case custom(any EventParser)
    }

    private enum State {
        case standard(SSEParser)
        case dataOnly(DataOnlyEventParser)
        case custom(pristine: any EventParser, current: any EventParser)
        /// Held only while a parser is taken out to be mutated (keeps its buffers unique).
        case taken
    }

    private var state: State
    /// The last event ID of everything decoded so far.
    private(set) var lastEventId: String
    /// Comments and `retry:` fields to put in the buffer as ``EventBuffer/Extra``s.
    private let extras: EventSource.Extras
    /// The event that ends the stream, if any (``EventSource/terminator``).
    private let terminator: EventSource.Terminator?
    /// The terminator arrived: nothing after it is decoded.
    private(set) var isTerminated = false

    init(
        kind: Kind, maximumEventSize: Int, lastEventId: String, extras: EventSource.Extras = [],
        terminator: EventSource.Terminator? = nil
    ) {
        self.lastEventId = lastEventId
        self.extras = extras
        self.terminator = terminator
        switch kind {
        case .standard:
            let configuration = SSEParser.Configuration(
                maximumLineLength: Self.lineLimit(forEventSize: maximumEventSize),
                maximumEventSize: maximumEventSize,
                reportsComments: extras.contains(.comments))
            self.state = .standard(SSEParser(configuration: configuration, lastEventId: lastEventId))
        case .dataOnly:
            self.state = .dataOnly(DataOnlyEventParser(maximumEventSize: maximumEventSize))
        case .custom(let parser):
            self.state = .custom(pristine: parser, current: parser)
        }
    }

    /// The longest line accepted when events may be `maximumEventSize` bytes: a `data:` line
    /// of the largest event, with room for its field name.
    static func lineLimit(forEventSize maximumEventSize: Int) -> Int {
        maximumEventSize > Int.max - 64 ? Int.max : maximumEventSize + 64
    }

    /// A new connection starts: unfinished input is dropped, the last event ID is kept, and a
    /// custom parser starts again from the copy the task was created with.
    mutating func reset() {
        switch self.state {
        case .standard(var parser):
            parser.reset()
            self.state = .standard(parser)
        case .dataOnly(var parser):
            parser.reset()
            self.state = .dataOnly(parser)
        case .custom(let pristine, _):
            self.state = .custom(pristine: pristine, current: pristine)
        case .taken:
            break
        }
    }

    /// The caller set the last event ID (``EventSource/DataTask/lastMessageId``): it is the
    /// stream's last event ID from now on, as if an event had carried it.
    mutating func seedLastEventId(_ id: String) {
        self.lastEventId = id
        if case .standard(var parser) = self.state {
            self.state = .taken
            parser.seedLastEventId(id)
            self.state = .standard(parser)
        }
    }

    /// Decodes `chunk`, appending events (and the positions where the last event ID changes)
    /// to `buffer`.
    ///
    /// - Returns: the last `retry:` value in the chunk, in milliseconds, if any.
    /// - Throws: ``SSEParserError`` when the stream exceeds the size limits.
    mutating func decode(_ chunk: [UInt8], into buffer: inout EventBuffer) throws(SSEParserError) -> Int? {
        var retry: Int?
        guard !self.isTerminated else { return nil }
        let terminator = self.terminator
        switch self.state {
        case .standard(var parser):
            self.state = .taken
            var recorded = self.lastEventId
            let extras = self.extras
            var terminated = false
            defer {
                self.lastEventId = parser.lastEventId
                self.state = .standard(parser)
                self.isTerminated = terminated
            }
            try parser.feed(
                chunk,
                events: { event in
                    guard !terminated else { return }
                    if let terminator, terminator.matches(type: event.type, data: event.data) {
                        terminated = true
                        return
                    }
                    if event.lastEventId != recorded {
                        recorded = event.lastEventId
                        buffer.recordLastEventId(recorded)
                    }
                    buffer.append(.event(ServerEvent(taking: &event)))
                },
                { output in
                    guard !terminated else { return }
                    switch output {
                    case .event: break  // events come through `events:`
                    case .retry(let milliseconds):
                        retry = milliseconds
                        if extras.contains(.retry) { buffer.appendExtra(.retry(milliseconds)) }
                    case .comment(let text):
                        if extras.contains(.comments) { buffer.appendExtra(.comment(text)) }
                    }
                })
            if !terminated && parser.lastEventId != recorded {
                buffer.recordLastEventId(parser.lastEventId)
            }
        case .dataOnly(var parser):
            self.state = .taken
            defer { self.state = .dataOnly(parser) }
            try parser.feed(chunk) { event in
                guard !self.isTerminated else { return }
                if let terminator, terminator.matches(event) {
                    self.isTerminated = true
                    return
                }
                if let id = event.id {
                    self.lastEventId = id
                    buffer.recordLastEventId(id)
                }
                buffer.append(.event(event))
            }
        case .custom(let pristine, var current):
            let events = current.parse(Data(chunk))
            self.state = .custom(pristine: pristine, current: current)
            for event in events {
                if let terminator, terminator.matches(event) {
                    self.isTerminated = true
                    break
                }
                if let id = event.id {
                    self.lastEventId = id
                    buffer.recordLastEventId(id)
                }
                buffer.append(.event(event))
            }
        case .taken:
            break
        }
        return retry
    }
}

/// Events decoded but not yet delivered, with the last event ID to publish as each is reached.
///
/// Filled by one chunk's decoding, then drained before the next chunk is read. Draining moves
/// each event out of its slot (`Optional.take()`), so no event is copied or retained twice,
/// and the storage is kept for the next chunk.
struct EventBuffer {
    private var events: [EventSource.EventType?] = []
    /// The next event to deliver.
    private var head = 0
    /// (position among the appended events, last event ID from that position on), in order.
    private var lastEventIdChanges: [(position: Int, id: String)] = []
    private var changeIndex = 0
    /// (position among the appended events, comment or retry delivered before it), in order;
    /// only for ``EventSource/DataTask/events(including:)``.
    private var extras: [(position: Int, extra: Extra)] = []
    private var extraIndex = 0

    /// A comment line or `retry:` field, delivered in stream order between events.
    enum Extra: Sendable {
        case comment(String)
        case retry(Int)
    }

    mutating func append(_ event: consuming EventSource.EventType) {
        self.events.append(.some(event))
    }

    /// The last event ID changes before the next appended event.
    mutating func recordLastEventId(_ id: String) {
        self.lastEventIdChanges.append((self.events.count, id))
    }

    /// A comment or retry that comes before the next appended event.
    mutating func appendExtra(_ extra: Extra) {
        self.extras.append((self.events.count, extra))
    }

    /// The comment or retry due before the next event, if any. Ask before ``next()``: once
    /// every event is taken, ``next()`` empties the buffer, extras included.
    mutating func nextExtra() -> Extra? {
        guard self.extraIndex < self.extras.count, self.extras[self.extraIndex].position <= self.head else { return nil }
        defer { self.extraIndex += 1 }
        return self.extras[self.extraIndex].extra
    }

    /// The next event, and the last event ID to publish before delivering it (if it changed).
    @inline(__always)
    mutating func next() -> (event: EventSource.EventType?, lastEventId: String?) {
        var lastEventId: String?
        if self.changeIndex < self.lastEventIdChanges.count {
            while self.changeIndex < self.lastEventIdChanges.count
                && self.lastEventIdChanges[self.changeIndex].position <= self.head
            {
                lastEventId = self.lastEventIdChanges[self.changeIndex].id
                self.changeIndex += 1
            }
        }
        if self.head < self.events.count {
            let event = self.events[self.head].take()
            self.head += 1
            return (event, lastEventId)
        }
        if self.head > 0 {
            self.events.removeAll(keepingCapacity: true)
            self.head = 0
        }
        if !self.lastEventIdChanges.isEmpty {
            self.lastEventIdChanges.removeAll(keepingCapacity: true)
            self.changeIndex = 0
        }
        if !self.extras.isEmpty {
            self.extras.removeAll(keepingCapacity: true)
            self.extraIndex = 0
        }
        return (nil, lastEventId)
    }
}
