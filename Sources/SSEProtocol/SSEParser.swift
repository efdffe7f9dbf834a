/// The WHATWG event-stream parser: bytes in, events out, no I/O.
///
/// Implements HTML §9.2.5 "Parsing an event stream" and §9.2.6 "Interpreting an event
/// stream" (https://html.spec.whatwg.org/multipage/server-sent-events.html):
/// - the stream is UTF-8; ill-formed bytes become U+FFFD, one leading byte order mark is
///   removed, and bytes of a character split across chunks are joined first;
/// - lines end at CRLF, LF or CR (see ``SSELineScanner``);
/// - an empty line dispatches the event; a line starting with `:` is a comment;
///   `name: value` lines lose one space after the colon; a line without a colon is a field
///   with an empty value;
/// - `data` appends its value and LF to the data buffer; `event` sets the type; `id` sets
///   the last event ID buffer unless it contains U+0000; `retry` made of ASCII digits is
///   reported as ``Output/retry(_:)``; other fields are ignored;
/// - at dispatch the last event ID is committed (also for an event with empty data, which
///   is not dispatched), the trailing LF is removed from the data, and the type is `nil`
///   when no (or an empty) `event` field came;
/// - an event not terminated by an empty line when the stream ends is discarded: call
///   ``reset()`` for a new connection.
///
/// Memory is bounded by ``Configuration/maximumLineLength`` and
/// ``Configuration/maximumEventSize``. Time is linear in the input: every byte is scanned
/// once, complete lines are interpreted in place, and `data` values of long lines stream
/// straight into the data buffer without an intermediate line copy. Fed with arrays
/// (``feed(_:_:)-([UInt8],_)``), large pieces of a `data` value are not copied at all until
/// the event is dispatched: the parser keeps a reference to the chunk they arrived in and
/// copies them once, into the event's string (see ``DataPiece``).
///
/// ```swift
/// var parser = SSEParser()
/// try parser.feed(Array("data: hello\n\n".utf8)) { output in
///     if case .event(let event) = output { print(event.data) }
/// }
/// ```
///
/// - Important: A value type with no locks: one owner feeds it at a time.
package struct SSEParser: Sendable {
    package let configuration: Configuration

    private var scanner: SSELineScanner
    private var lineState: LineState = .lineStart
    /// The current line when it spans chunks and is not a streamed `data` line.
    private var lineBuffer = ByteBuffer()
    /// The data buffer: each `data` value followed by LF, except the ``dataPieces``.
    private var dataBuffer = ByteBuffer()
    /// Large parts of `data` values kept in the chunks they arrived in, in order.
    private var dataPieces: [DataPiece] = []
    /// The bytes in ``dataPieces``.
    private var dataPieceBytes = 0
    /// The array being fed, while ``feed(_:_:)-([UInt8],_)`` runs: the owner of the fragments.
    private var currentChunk: [UInt8]?
    /// The address of `currentChunk`'s bytes during the feed (an address is not `Sendable`).
    private var currentChunkBase = 0
    private var eventTypeBuffer: String?
    /// The `id` field seen since the last dispatch, if any.
    private var eventIdField: String?
    private var lastEventIdBuffer: String
    /// A field line other than `data` came since the last dispatch
    /// (``Configuration/dispatchesBlocksWithoutData`` only).
    private var blockHasField = false
    /// The last event ID committed at the most recent dispatch.
    package private(set) var lastEventId: String
    private var failure: SSEParserError?

    private enum LineState: Sendable {
        /// At the start of a line.
        case lineStart
        /// Inside a line that spans chunks, collected in `lineBuffer`.
        case buffering
        /// Inside a `data:` line that spans chunks; its value goes straight to `dataBuffer`.
        /// `pendingSpace`: no value byte seen yet, so a leading space is still to be dropped.
        case streamingData(pendingSpace: Bool)
        /// Inside a comment line nobody asked for: its bytes are skipped.
        case skippingComment
    }

    /// Buffers larger than this are released after use instead of kept for the next event.
    private static let retainedCapacity = 64 << 10

    /// A part of the data buffer that stays in the chunk it arrived in: `bytes` come after
    /// the first `offset` bytes of ``dataBuffer``.
    ///
    /// A piece is kept only when it is at least ``pieceMinimum`` bytes and at least half of its
    /// chunk, so the chunks held never take more than twice the event's size (only the first
    /// and the last piece of a value can share their chunk with other lines).
    private struct DataPiece: Sendable {
        var bytes: ArraySlice<UInt8>
        var offset: Int
    }

    private static let pieceMinimum = 4 << 10

    /// - Parameters:
    ///   - configuration: limits and options.
    ///   - lastEventId: the last event ID to start from (e.g. restored from storage).
    package init(configuration: Configuration = Configuration(), lastEventId: String = "") {
        self.configuration = configuration
        self.scanner = SSELineScanner(maximumLineLength: configuration.maximumLineLength)
        self.lastEventIdBuffer = lastEventId
        self.lastEventId = lastEventId
    }

    /// Forgets the unfinished line and event (a stream ended or a new connection starts) and
    /// clears a failure. The last event ID is kept, as WHATWG keeps it across reconnections.
    package mutating func reset() {
        self.scanner.reset()
        self.lineState = .lineStart
        Self.clear(&self.lineBuffer)
        Self.clear(&self.dataBuffer)
        self.dropDataPieces()
        self.eventTypeBuffer = nil
        self.eventIdField = nil
        self.blockHasField = false
        self.lastEventIdBuffer = self.lastEventId
        self.failure = nil
    }

    /// Sets the last event ID as if an event had committed it (the caller restored or chose
    /// it): it is what the next dispatched events report until an `id` field changes it.
    package mutating func seedLastEventId(_ id: String) {
        self.lastEventId = id
        self.lastEventIdBuffer = id
    }

    /// Parses the next bytes of the stream.
    ///
    /// - Parameters:
    ///   - bytes: any number of bytes, split anywhere.
    ///   - output: called for each event, retry and (if configured) comment, in order.
    /// - Throws: ``SSEParserError`` when a limit is exceeded; the parser then stays failed
    ///   until ``reset()``. Outputs reported before the error remain valid.
    package mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        _ output: (consuming Output) -> Void
    ) throws(SSEParserError) {
        try self.feed(bytes, events: { output(.event($0)) }, output)
    }

    /// Parses the next bytes of the stream, handing each event to `events` in place: the
    /// handler may move the event's strings out (`take()`, `swap`) instead of copying them.
    /// Retries and comments go to `other`. See ``feed(_:_:)-(UnsafeRawBufferPointer,_)``.
    package mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        events: (inout SSEEvent) -> Void,
        _ other: (consuming Output) -> Void
    ) throws(SSEParserError) {
        if let failure = self.failure { throw failure }
        var scanner = self.scanner
        defer { self.scanner = scanner }
        do {
            try scanner.scan(bytes) { (fragment, endsLine) throws(SSEParserError) in
                try self.consume(fragment, endsLine: endsLine, events, other)
            }
        } catch {
            self.failure = error
            self.dropDataPieces()
            throw error
        }
    }

    /// Parses the next bytes of the stream. See ``feed(_:_:)-(UnsafeRawBufferPointer,_)``.
    ///
    /// Large `data` pieces are kept in `bytes` (a reference, no copy) until their event is
    /// dispatched.
    package mutating func feed(_ bytes: [UInt8], _ output: (consuming Output) -> Void) throws(SSEParserError) {
        try self.feed(bytes, events: { output(.event($0)) }, output)
    }

    /// Parses the next bytes of the stream, each event handed over in place. See
    /// ``feed(_:events:_:)-(UnsafeRawBufferPointer,_,_)`` and ``feed(_:_:)-([UInt8],_)``.
    package mutating func feed(
        _ bytes: [UInt8],
        events: (inout SSEEvent) -> Void,
        _ other: (consuming Output) -> Void
    ) throws(SSEParserError) {
        try bytes.withBytes { (raw) throws(SSEParserError) in
            self.currentChunk = bytes
            self.currentChunkBase = Int(bitPattern: raw.baseAddress)
            defer {
                self.currentChunk = nil
                self.currentChunkBase = 0
            }
            try self.feed(raw, events: events, other)
        }
    }

    /// Parses the next bytes and returns what they produced.
    package mutating func parse(_ bytes: [UInt8]) throws(SSEParserError) -> [Output] {
        var outputs: [Output] = []
        try self.feed(bytes) { outputs.append($0) }
        return outputs
    }

    // MARK: - Lines

    @inline(__always)
    private mutating func consume(
        _ fragment: UnsafeRawBufferPointer, endsLine: Bool,
        _ events: (inout SSEEvent) -> Void,
        _ other: (consuming Output) -> Void
    ) throws(SSEParserError) {
        switch self.lineState {
        case .lineStart:
            if endsLine {
                try self.interpretLine(fragment, events, other)
            } else {
                try self.beginPartialLine(fragment)
            }
        case .buffering:
            self.lineBuffer.append(fragment)
            if endsLine {
                self.lineState = .lineStart
                var line = self.lineBuffer
                self.lineBuffer = ByteBuffer()
                try line.withBytes(0..<line.count) { (raw) throws(SSEParserError) in
                    try self.interpretLine(raw, events, other)
                }
                Self.clear(&line)
                self.lineBuffer = line
            } else {
                try self.streamBufferedDataLineIfPossible()
            }
        case .streamingData(let pendingSpace):
            var value = fragment
            if pendingSpace && !value.isEmpty {
                value = ByteScanning.droppingOneLeadingSpace(value)
                self.lineState = .streamingData(pendingSpace: false)
            }
            try self.appendData(value)
            if endsLine {
                self.dataBuffer.append(ByteScanning.lineFeed)
                self.lineState = .lineStart
            }
        case .skippingComment:
            if endsLine { self.lineState = .lineStart }
        }
    }

    /// The first fragment of a line that continues in the next chunk.
    private mutating func beginPartialLine(_ fragment: UnsafeRawBufferPointer) throws(SSEParserError) {
        if fragment.first == ByteScanning.colon && !self.configuration.reportsComments {
            self.lineState = .skippingComment
        } else if ByteScanning.startsWithDataColon(fragment) {
            let value = UnsafeRawBufferPointer(rebasing: fragment[5...])
            self.lineState = .streamingData(pendingSpace: value.isEmpty)
            try self.appendData(ByteScanning.droppingOneLeadingSpace(value))
        } else {
            self.lineBuffer.append(fragment)
            self.lineState = .buffering
        }
    }

    /// A buffered partial line that turned out to start with `data:` (its first bytes came
    /// in tiny chunks) switches to streaming, so a long value is not copied twice.
    private mutating func streamBufferedDataLineIfPossible() throws(SSEParserError) {
        guard self.lineBuffer.startsWithDataColon else { return }
        var line = self.lineBuffer
        self.lineBuffer = ByteBuffer()
        let hasValue = line.count > 5
        try line.withBytes(5..<line.count) { (value) throws(SSEParserError) in
            try self.appendData(ByteScanning.droppingOneLeadingSpace(value))
        }
        self.lineState = .streamingData(pendingSpace: !hasValue)
        Self.clear(&line)
        self.lineBuffer = line
    }

    /// Interprets one complete line (WHATWG §9.2.6).
    @inline(__always)
    private mutating func interpretLine(
        _ line: UnsafeRawBufferPointer,
        _ events: (inout SSEEvent) -> Void,
        _ output: (consuming Output) -> Void
    ) throws(SSEParserError) {
        if line.isEmpty {
            self.dispatch(events)
            return
        }
        if ByteScanning.startsWithDataColon(line) {
            let value = ByteScanning.droppingOneLeadingSpace(UnsafeRawBufferPointer(rebasing: line[5...]))
            try self.appendData(value)
            self.dataBuffer.append(ByteScanning.lineFeed)
            return
        }
        if line[0] == ByteScanning.colon {
            if self.configuration.reportsComments {
                let text = ByteScanning.droppingOneLeadingSpace(UnsafeRawBufferPointer(rebasing: line[1...]))
                output(.comment(Self.decode(text)))
            }
            return
        }
        let name: UnsafeRawBufferPointer
        let value: UnsafeRawBufferPointer
        if let colon = ByteScanning.firstIndex(of: ByteScanning.colon, in: line) {
            name = UnsafeRawBufferPointer(rebasing: line[..<colon])
            value = ByteScanning.droppingOneLeadingSpace(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
        } else {
            name = line
            value = UnsafeRawBufferPointer(start: nil, count: 0)
        }
        try self.processField(name: name, value: value, output)
    }

    /// WHATWG §9.2.6 "process the field".
    private mutating func processField(
        name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
        _ output: (consuming Output) -> Void
    ) throws(SSEParserError) {
        self.blockHasField = true
        if ByteScanning.bytes(name, equal: "data") {
            try self.appendData(value)
            self.dataBuffer.append(ByteScanning.lineFeed)
        } else if ByteScanning.bytes(name, equal: "event") {
            self.eventTypeBuffer = Self.decode(value)
        } else if ByteScanning.bytes(name, equal: "id") {
            if ByteScanning.firstIndex(of: 0, in: value) == nil {
                let id = Self.decode(value)
                self.lastEventIdBuffer = id
                self.eventIdField = id
            }
        } else if ByteScanning.bytes(name, equal: "retry") {
            if let milliseconds = Self.parseDigits(value) {
                output(.retry(milliseconds))
            }
        }
    }

    /// Appends a `data` value (or part of one) to the data buffer, within the size limit.
    @inline(__always)
    private mutating func appendData(_ value: UnsafeRawBufferPointer) throws(SSEParserError) {
        // The buffer ends with the LF that will join this value to the previous one.
        guard self.dataBuffer.count + self.dataPieceBytes + value.count <= self.configuration.maximumEventSize else {
            throw SSEParserError.eventTooLarge(limit: self.configuration.maximumEventSize)
        }
        if value.count >= Self.pieceMinimum, self.keepPiece(value) { return }
        self.dataBuffer.append(value)
    }

    /// Keeps `value` in the chunk being fed, when it is large enough a share of it.
    private mutating func keepPiece(_ value: UnsafeRawBufferPointer) -> Bool {
        guard let chunk = self.currentChunk, self.currentChunkBase != 0, let start = value.baseAddress,
            value.count &* 2 >= chunk.count
        else { return false }
        let offset = Int(bitPattern: start) - self.currentChunkBase
        guard offset >= 0, offset + value.count <= chunk.count else { return false }
        self.dataPieces.append(DataPiece(bytes: chunk[offset..<offset + value.count], offset: self.dataBuffer.count))
        self.dataPieceBytes += value.count
        return true
    }

    private mutating func dropDataPieces() {
        guard !self.dataPieces.isEmpty else { return }
        self.dataPieces.removeAll()
        self.dataPieceBytes = 0
    }

    // MARK: - Dispatch

    /// WHATWG §9.2.6 "dispatch the event".
    private mutating func dispatch(_ events: (inout SSEEvent) -> Void) {
        self.lastEventId = self.lastEventIdBuffer
        // Moved out (and so reset for the next block) rather than copied.
        let type = Self.nonEmpty(self.eventTypeBuffer.take())
        let id = self.eventIdField.take()
        guard !self.dataBuffer.isEmpty else {
            if self.blockHasField {
                self.blockHasField = false
                guard self.configuration.dispatchesBlocksWithoutData else { return }
                var event = SSEEvent(type: type, data: "", id: id, lastEventId: self.lastEventId, hasData: false)
                events(&event)
            }
            return
        }
        self.blockHasField = false
        let data: String
        if self.dataPieces.isEmpty {
            data = self.dataBuffer.withBytes(0..<(self.dataBuffer.count - 1)) { raw in
                raw.count >= ByteBuffer.hugePageThreshold ? Self.decodeLarge(raw) : Self.decode(raw)
            }
        } else {
            data = Self.decode(
                pieces: self.dataPieces, between: self.dataBuffer,
                count: self.dataBuffer.count + self.dataPieceBytes - 1)
            self.dataPieces.removeAll(keepingCapacity: self.dataPieces.capacity <= 1024)
            self.dataPieceBytes = 0
        }
        Self.clear(&self.dataBuffer)
        var event = SSEEvent(type: type, data: data, id: id, lastEventId: self.lastEventId)
        events(&event)
    }

    /// The `event` field's value as an event type: `nil` when absent or empty.
    @inline(__always)
    private static func nonEmpty(_ type: consuming String?) -> String? {
        guard let type, !type.isEmpty else { return nil }
        return type
    }

    // MARK: - Helpers

    @inline(__always)
    private static func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    /// Decodes a large value straight into a new string's storage (repairing ill-formed
    /// UTF-8 like `decode`), with huge pages requested before it is first touched.
    private static func decodeLarge(_ bytes: UnsafeRawBufferPointer) -> String {
        Self.makeString(capacity: bytes.count) { destination in
            ByteBuffer.adviseHugePages(destination, byteCount: bytes.count)
            destination.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            return bytes.count
        }
    }

    /// A string of the UTF-8 bytes `fill` writes (at most `capacity`; it returns how many),
    /// ill-formed sequences repaired as `String(decoding:as:)` does. The bytes go straight into
    /// the string's storage where the OS has `String(unsafeUninitializedCapacity:)` (iOS 14 /
    /// macOS 11, and always on Linux); before that, through an array: one more copy.
    private static func makeString(capacity: Int, _ fill: (UnsafeMutableRawPointer) -> Int) -> String {
        if #available(macOS 11, iOS 14, tvOS 14, watchOS 7, *) {
            return String(unsafeUninitializedCapacity: capacity) { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return fill(UnsafeMutableRawPointer(base))
            }
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            initialized = buffer.baseAddress.map { fill(UnsafeMutableRawPointer($0)) } ?? 0
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes the data buffer with its pieces put back in place: `count` bytes (the trailing
    /// LF left out), copied once into the new string's storage.
    private static func decode(pieces: [DataPiece], between buffer: ByteBuffer, count: Int) -> String {
        Self.makeString(capacity: count) { destination in
            if count >= ByteBuffer.hugePageThreshold {
                ByteBuffer.adviseHugePages(destination, byteCount: count)
            }
            return buffer.withBytes(0..<buffer.count) { contiguous -> Int in
                var written = 0
                var cursor = 0
                for piece in pieces {
                    let gap = piece.offset - cursor
                    if gap > 0, let source = contiguous.baseAddress {
                        (destination + written).copyMemory(from: source + cursor, byteCount: gap)
                        written += gap
                        cursor = piece.offset
                    }
                    piece.bytes.withUnsafeBytes { bytes in
                        if let source = bytes.baseAddress {
                            (destination + written).copyMemory(from: source, byteCount: bytes.count)
                        }
                    }
                    written += piece.bytes.count
                }
                let rest = count - written
                if rest > 0, let source = contiguous.baseAddress {
                    (destination + written).copyMemory(from: source + cursor, byteCount: rest)
                    written += rest
                }
                return written
            }
        }
    }

    /// A base-ten integer when `bytes` is one or more ASCII digits (saturating), else `nil`.
    private static func parseDigits(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - 0x30))
            value = (overflow1 || overflow2) ? Int.max : sum
        }
        return value
    }

    /// Empties a buffer, keeping its storage unless it grew large.
    @inline(__always)
    private static func clear(_ buffer: inout ByteBuffer) {
        buffer.removeAll(retainedCapacity: Self.retainedCapacity)
    }
}
