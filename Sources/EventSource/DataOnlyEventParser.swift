import Foundation
import SSEProtocol

/// The ``EventSource/Mode/dataOnly`` reading of an event stream, as Recouse's EventSource
/// defines it: each event block is not split into fields. The block's text (its lines up to
/// an empty line, comment lines left out, joined with LF) is cut at its first colon; the part
/// before, trimmed of spaces and tabs, names the field (`data`, `id`, `event` or `time`) and
/// the part after, trimmed of spaces and tabs at both ends, is its whole value. A block
/// without a colon becomes `other[block] = ""`. Blocks that give an empty event are dropped.
///
/// Lines are split and the stream decoded as in the default mode (``SSELineScanner``):
/// CRLF/LF/CR endings, one leading BOM removed, ill-formed UTF-8 replaced with U+FFFD.
struct DataOnlyEventParser {
    private var scanner: SSELineScanner
    private let maximumEventSize: Int
    /// The current block: its non-comment lines joined with LF.
    private var block: [UInt8] = []
    private var atLineStart = true
    private var blockHasLine = false
    private var skippingComment = false

    init(maximumEventSize: Int) {
        self.maximumEventSize = maximumEventSize
        self.scanner = SSELineScanner(maximumLineLength: maximumEventSize + 64)
    }

    /// Forgets the unfinished block (a new connection).
    mutating func reset() {
        self.scanner.reset()
        self.block.removeAll(keepingCapacity: self.block.capacity <= 1 << 16)
        self.atLineStart = true
        self.blockHasLine = false
        self.skippingComment = false
    }

    /// Parses the next chunk, calling `emit` for each complete event.
    mutating func feed(_ chunk: [UInt8], _ emit: (ServerEvent) -> Void) throws(SSEParserError) {
        try self.feedBlocks(chunk) { event in
            if let event { emit(event) }
        }
    }

    /// Parses the next chunk, calling `emit` at the end of each block: with its event, or
    /// `nil` when the block gave an empty one (`ServerEvent.parse(from:mode:)` stops there).
    mutating func feedBlocks(_ chunk: [UInt8], _ emit: (ServerEvent?) -> Void) throws(SSEParserError) {
        var scanner = self.scanner
        defer { self.scanner = scanner }
        let outcome: Result<Void, SSEParserError> = chunk.withUnsafeBytes { raw in
            do throws(SSEParserError) {
                try scanner.scan(raw) { (fragment, endsLine) throws(SSEParserError) in
                    try self.consume(fragment, endsLine: endsLine, emit)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    private mutating func consume(
        _ fragment: UnsafeRawBufferPointer, endsLine: Bool,
        _ emit: (ServerEvent?) -> Void
    ) throws(SSEParserError) {
        if self.atLineStart {
            if fragment.isEmpty && endsLine {
                // An empty line ends the block.
                if self.blockHasLine {
                    emit(Self.event(fromBlock: self.block))
                }
                self.block.removeAll(keepingCapacity: self.block.capacity <= 1 << 16)
                self.blockHasLine = false
                return
            }
            self.skippingComment = fragment.first == UInt8(ascii: ":")
            if !self.skippingComment {
                if self.blockHasLine { self.block.append(UInt8(ascii: "\n")) }
                self.blockHasLine = true
            }
        }
        if !self.skippingComment {
            guard self.block.count + fragment.count <= self.maximumEventSize else {
                throw SSEParserError.eventTooLarge(limit: self.maximumEventSize)
            }
            self.block.append(contentsOf: fragment)
        }
        self.atLineStart = endsLine
    }

    /// Recouse's reading of one block.
    static func event(fromBlock bytes: [UInt8]) -> ServerEvent? {
        let text = String(decoding: bytes, as: UTF8.self)
        var event = ServerEvent()
        if let colon = text.firstIndex(of: ":") {
            let key = text[..<colon].trimmingCharacters(in: .whitespaces)
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "data": event.data = value
            case "id": event.id = value
            case "event": event.event = value
            case "time": event.time = value
            default: break
            }
        } else {
            event.other = [text: ""]
        }
        return event.isEmpty ? nil : event
    }
}
