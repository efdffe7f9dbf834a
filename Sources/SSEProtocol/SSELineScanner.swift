/// Splits an event stream into lines (WHATWG HTML §9.2.5, "Parsing an event stream").
///
/// Lines end at CRLF, at LF, or at a CR not followed by LF, including a CR that ends one
/// chunk and an LF that starts the next. One UTF-8 byte order mark (EF BB BF) is removed at
/// the start of the stream only, even when it arrives split across chunks.
///
/// The scanner buffers nothing: it reports each line as one or more *fragments* that point
/// into the caller's chunk, the last one flagged `endsLine`. A line that is complete inside
/// one chunk arrives as a single fragment; a line cut by a chunk boundary arrives as several.
/// Every byte is looked at once, eight at a time, so scanning is linear in the input.
///
/// Splitting bytes before decoding is exact: CR, LF and `:` never occur inside a multi-byte
/// UTF-8 sequence, and an ill-formed sequence never absorbs an ASCII byte, so decoding each
/// value on its own gives the same text as decoding the stream first.
package struct SSELineScanner: Sendable {
    /// The longest line accepted, without its terminator.
    package let maximumLineLength: Int

    /// How many bytes of the byte order mark matched so far; `nil` once decided.
    private var byteOrderMarkMatched: Int? = 0
    /// The previous chunk ended with CR: an LF at the start of the next one belongs to it.
    private var skipsLeadingLineFeed = false
    /// Bytes of the current, unfinished line reported so far.
    private var currentLineLength = 0

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    package init(maximumLineLength: Int = 16 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    /// Starts a new stream (a new connection): the next bytes may begin with a byte order mark.
    package mutating func reset() {
        self.byteOrderMarkMatched = 0
        self.skipsLeadingLineFeed = false
        self.currentLineLength = 0
    }

    /// Scans `chunk`, calling `fragment` for each line fragment in order.
    ///
    /// - Parameters:
    ///   - chunk: the next bytes of the stream.
    ///   - fragment: receives bytes of the current line (valid only during the call) and
    ///     whether they end it. An empty line arrives as an empty fragment with `endsLine`.
    /// - Throws: ``SSEParserError/lineTooLong(limit:)`` when the current line grows past
    ///   ``maximumLineLength``, after reporting its bytes up to the limit (never more), so
    ///   what the consumer sees before the error does not depend on where chunks were cut;
    ///   errors thrown by `fragment`.
    package mutating func scan(
        _ chunk: UnsafeRawBufferPointer,
        _ fragment: (_ bytes: UnsafeRawBufferPointer, _ endsLine: Bool) throws(SSEParserError) -> Void
    ) throws(SSEParserError) {
        let count = chunk.count
        guard count > 0 else { return }
        var index = 0

        if let matched = self.byteOrderMarkMatched {
            var matchedCount = matched
            while matchedCount < 3 && index < count && chunk[index] == Self.byteOrderMark[matchedCount] {
                matchedCount += 1
                index += 1
            }
            if matchedCount == 3 {
                self.byteOrderMarkMatched = nil
            } else if index == count {
                self.byteOrderMarkMatched = matchedCount
                return
            } else {
                // Not a byte order mark: the matched bytes are ordinary line content. Those
                // from earlier chunks are reported first; this chunk is re-scanned from 0.
                self.byteOrderMarkMatched = nil
                if matched > 0 {
                    try Self.byteOrderMark.withBytes { (mark) throws(SSEParserError) in
                        try self.report(UnsafeRawBufferPointer(rebasing: mark[0..<matched]), endsLine: false, fragment)
                    }
                }
                index = 0
            }
        }

        if self.skipsLeadingLineFeed && index < count {
            self.skipsLeadingLineFeed = false
            if chunk[index] == ByteScanning.lineFeed { index += 1 }
        }

        while index < count {
            if let end = ByteScanning.firstLineEnd(in: chunk, from: index, to: count) {
                try self.report(UnsafeRawBufferPointer(rebasing: chunk[index..<end]), endsLine: true, fragment)
                if chunk[end] == ByteScanning.carriageReturn {
                    if end + 1 < count {
                        index = chunk[end + 1] == ByteScanning.lineFeed ? end + 2 : end + 1
                    } else {
                        self.skipsLeadingLineFeed = true
                        index = end + 1
                    }
                } else {
                    index = end + 1
                }
            } else {
                try self.report(UnsafeRawBufferPointer(rebasing: chunk[index..<count]), endsLine: false, fragment)
                index = count
            }
        }
    }

    @inline(__always)
    private mutating func report(
        _ bytes: UnsafeRawBufferPointer, endsLine: Bool,
        _ fragment: (UnsafeRawBufferPointer, Bool) throws(SSEParserError) -> Void
    ) throws(SSEParserError) {
        let length = self.currentLineLength + bytes.count
        guard length <= self.maximumLineLength else {
            // The bytes up to the limit are reported first, so the consumer sees the same
            // bytes before the error however the stream was cut into chunks (and a limit of
            // its own, such as an event size, fails at the same byte either way).
            let allowed = self.maximumLineLength - self.currentLineLength
            if allowed > 0 {
                self.currentLineLength = self.maximumLineLength
                try fragment(UnsafeRawBufferPointer(rebasing: bytes[0..<allowed]), false)
            }
            throw SSEParserError.lineTooLong(limit: self.maximumLineLength)
        }
        self.currentLineLength = endsLine ? 0 : length
        try fragment(bytes, endsLine)
    }
}
