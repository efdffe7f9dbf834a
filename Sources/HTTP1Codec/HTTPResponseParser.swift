import RealtimeEncoding

/// An incremental, sans-I/O parser of HTTP/1.x responses (RFC 9112).
///
/// Feed it bytes as they arrive with ``append(_:)-([UInt8])`` and pull events with
/// ``next()`` until it returns `nil` ("need more bytes"). At end of input call ``finish()``
/// (repeatedly, until `nil`): it ends a close-delimited body and reports a truncated one.
///
/// ```swift
/// var parser = HTTPResponseParser()
/// parser.expectResponse(toMethod: "GET")
/// parser.append(bytesFromSocket)
/// while let event = try parser.next() {
///     switch event {
///     case .head(let head): print(head.status)
///     case .body(let chunk): consume(chunk)
///     case .end: break
///     }
/// }
/// ```
///
/// What it implements:
/// - the status line and field lines (RFC 9112 §4, §5), rejecting obsolete line folding
///   (§5.2) and fields without a valid token name; bare LF line ends are accepted (§2.2);
/// - body framing in the order of RFC 9112 §6.3: no body for HEAD, 1xx, 204 and 304;
///   `Transfer-Encoding` ending in `chunked` (§7.1, extensions ignored, trailers consumed);
///   `Content-Length` (conflicting values rejected); otherwise read until the connection closes;
/// - interim 1xx responses are skipped (e.g. `100 Continue`, `103 Early Hints`); a
///   `101 Switching Protocols` head ends parsing: the bytes after it belong to the next
///   protocol and are returned by ``takeRemainingBytes()``.
///
/// Body bytes are delivered as they arrive, never accumulated. Every byte is scanned once
/// (a line search resumes where it stopped) and consumed bytes are compacted lazily, so
/// parsing is linear in the input whatever the split. Memory is bounded by
/// ``HTTPParserLimits`` plus the size of one ``append(_:)-([UInt8])`` call.
///
/// - Important: A value type with no locking; the owner serializes access.
package struct HTTPResponseParser: Sendable {
    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case closeDelimitedBody
        case emitEnd
        case upgraded
        case failed(HTTPParseError)
    }

    private let limits: HTTPParserLimits
    private var buffer = InputByteBuffer()
    private var state: State = .head
    private var receivedEOF = false
    /// How far (from the read position) the current line has been searched for LF.
    private var scanOffset = 0

    // The head (or trailer section) being parsed.
    private var headBytes = 0
    private var headFieldCount = 0
    private var status: Int?
    private var reason = ""
    private var versionMinor = 1
    private var headers = HTTPHeaders()
    private var informationalCount = 0

    /// The request methods whose responses change framing (RFC 9110 §9.3.2, §9.3.6).
    private enum PendingMethod: Sendable { case head, connect, other }
    /// For each request awaiting its response, in order: how its method frames the response.
    private var pendingMethods: [PendingMethod] = []
    private var lastResponseAllowsReuse = true

    package init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    // MARK: Inputs

    /// Tells the parser which request method the next response answers (a response to HEAD
    /// has no body, RFC 9110 §9.3.2; a 2xx response to CONNECT turns the connection into a
    /// tunnel right after its head, RFC 9112 §6.3 (2), like a `101`). Call once per request,
    /// before its response is parsed; calls queue up for pipelined requests. Without a call
    /// the response is read as if it answered a GET.
    package mutating func expectResponse(toMethod method: String) {
        switch method {
        case "HEAD": self.pendingMethods.append(.head)
        case "CONNECT": self.pendingMethods.append(.connect)
        default: self.pendingMethods.append(.other)
        }
    }

    /// Adds bytes received from the connection.
    ///
    /// Size limits are checked before buffering: when the unfinished line of a head would
    /// grow past ``HTTPParserLimits/maxHeaderBytes`` (or a chunk-size line past its limit),
    /// the bytes are dropped and the next call to ``next()`` throws. Bytes appended before
    /// ``next()`` drained the previous ones are checked by ``next()`` instead.
    package mutating func append(_ bytes: [UInt8]) {
        guard bytes.withUnsafeBytes({ self.admitsMoreInput($0) }) else { return }
        self.buffer.append(bytes)
    }

    /// Adds bytes received from the connection (see ``append(_:)-([UInt8])``).
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard bytes.withUnsafeBytes({ self.admitsMoreInput($0) }) else { return }
        self.buffer.append(bytes)
    }

    /// Adds bytes received from the connection (see ``append(_:)-([UInt8])``).
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard self.admitsMoreInput(bytes) else { return }
        self.buffer.append(bytes)
    }

    /// The next event, or `nil` when more bytes are needed (or, after ``finish()``, when
    /// everything was delivered).
    ///
    /// - Throws: ``HTTPParseError`` for malformed or oversized input; the parser then stays
    ///   failed and throws the same error again.
    package mutating func next() throws(HTTPParseError) -> HTTPResponseEvent? {
        do {
            return try self.step()
        } catch {
            self.state = .failed(error)
            throw error
        }
    }

    /// Marks the end of input (the peer closed the connection) and returns the next event.
    /// Call it until it returns `nil`.
    ///
    /// Ends a close-delimited body with `.end`; returns `nil` when the input ended cleanly
    /// between responses.
    /// - Throws: `.truncatedBody` when a `Content-Length` or chunked body was cut short,
    ///   `.truncatedHead` when a head was.
    package mutating func finish() throws(HTTPParseError) -> HTTPResponseEvent? {
        self.receivedEOF = true
        return try self.next()
    }

    /// Removes and returns every byte received but not parsed. After a `101` head these are
    /// the first bytes of the new protocol (RFC 9110 §15.2.2).
    package mutating func takeRemainingBytes() -> [UInt8] {
        self.scanOffset = 0
        return self.buffer.takeAll()
    }

    // MARK: Queries

    /// Whether the connection can carry another request now: the last response ended, its
    /// framing and `Connection` field allow reuse (RFC 9112 §9.3), nothing unexpected is
    /// buffered and the input has not ended.
    package var canReuseConnection: Bool {
        guard case .head = self.state else { return false }
        return self.status == nil && self.headBytes == 0 && self.buffer.isEmpty
            && !self.receivedEOF && self.lastResponseAllowsReuse
    }

    /// Whether bytes are held that ``next()`` has not consumed yet.
    package var hasBufferedBytes: Bool { !self.buffer.isEmpty }

    /// How many received bytes are held unparsed (bounded by the limits while a line is
    /// incomplete).
    package var bufferedByteCount: Int { self.buffer.count }

    // MARK: The state machine

    /// Whether `bytes` may be buffered. While a line of the head, of the trailers or a
    /// chunk-size line is incomplete (every held byte was searched), the new bytes are searched
    /// only as far as the line's limit allows: a line that would exceed it fails the parser
    /// here, so an endless line never grows the buffer past its limit plus one append.
    private mutating func admitsMoreInput(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let limit: Int
        let overflow: HTTPParseError
        switch self.state {
        case .failed:
            return false
        case .head, .trailers:
            limit = self.limits.maxHeaderBytes - self.headBytes
            overflow = Self.headersTooLarge
        case .chunkSizeLine:
            limit = self.limits.maxChunkSizeLineBytes
            overflow = Self.chunkLineTooLong
        default:
            return true
        }
        guard self.scanOffset == self.buffer.count else { return true }
        let allowance = max(0, limit - self.buffer.count)
        let window = min(bytes.count, allowance)
        if bytes[0..<window].contains(UInt8(ascii: "\n")) { return true }
        if bytes.count > allowance {
            self.state = .failed(overflow)
            return false
        }
        self.scanOffset += bytes.count
        return true
    }

    private mutating func step() throws(HTTPParseError) -> HTTPResponseEvent? {
        while true {
            switch self.state {
            case .failed(let error):
                throw error

            case .upgraded:
                return nil

            case .emitEnd:
                self.state = .head
                return .end

            case .head:
                guard
                    let line = try self.nextLine(
                        limit: self.limits.maxHeaderBytes - self.headBytes,
                        overflow: Self.headersTooLarge)
                else {
                    if self.receivedEOF {
                        if self.buffer.isEmpty && self.status == nil && self.headBytes == 0 { return nil }
                        throw HTTPParseError(.truncatedHead, "connection closed inside a response head")
                    }
                    return nil
                }
                if let event = try self.processHeadLine(length: line.length, total: line.total) {
                    return event
                }

            case .fixedBody(let remaining):
                if self.buffer.isEmpty {
                    if self.receivedEOF {
                        throw HTTPParseError(
                            .truncatedBody,
                            "connection closed with \(remaining) bytes of the body missing")
                    }
                    return nil
                }
                let length = min(remaining, self.buffer.count)
                let bytes = self.buffer.take(length)
                self.state = length == remaining ? .emitEnd : .fixedBody(remaining: remaining - length)
                return .body(bytes)

            case .closeDelimitedBody:
                if !self.buffer.isEmpty { return .body(self.buffer.takeAll()) }
                if self.receivedEOF {
                    self.state = .emitEnd
                    continue
                }
                return nil

            case .chunkSizeLine:
                guard
                    let line = try self.nextLine(
                        limit: self.limits.maxChunkSizeLineBytes,
                        overflow: Self.chunkLineTooLong)
                else {
                    if self.receivedEOF { throw Self.truncatedChunkedBody }
                    return nil
                }
                let size = try Self.parseChunkSize(self.buffer.slice(from: 0, length: line.length))
                self.buffer.consume(line.total)
                if size == 0 {
                    self.headBytes = 0
                    self.headFieldCount = 0
                    self.state = .trailers
                } else {
                    self.state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                if self.buffer.isEmpty {
                    if self.receivedEOF { throw Self.truncatedChunkedBody }
                    return nil
                }
                let length = min(remaining, self.buffer.count)
                let bytes = self.buffer.take(length)
                self.state = length == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - length)
                return .body(bytes)

            case .chunkDataEnd:
                guard self.buffer.count >= 1 else {
                    if self.receivedEOF { throw Self.truncatedChunkedBody }
                    return nil
                }
                if self.buffer[0] == UInt8(ascii: "\n") {
                    self.buffer.consume(1)
                } else if self.buffer[0] == UInt8(ascii: "\r") {
                    guard self.buffer.count >= 2 else {
                        if self.receivedEOF { throw Self.truncatedChunkedBody }
                        return nil
                    }
                    guard self.buffer[1] == UInt8(ascii: "\n") else { throw Self.missingChunkTerminator }
                    self.buffer.consume(2)
                } else {
                    throw Self.missingChunkTerminator
                }
                self.state = .chunkSizeLine

            case .trailers:
                guard
                    let line = try self.nextLine(
                        limit: self.limits.maxHeaderBytes - self.headBytes,
                        overflow: Self.headersTooLarge)
                else {
                    if self.receivedEOF { throw Self.truncatedChunkedBody }
                    return nil
                }
                try self.processTrailerLine(length: line.length, total: line.total)
            }
        }
    }

    /// Finds the next line: its length without the line end, and with it. Resumes the LF
    /// search where the previous call stopped.
    private mutating func nextLine(limit: Int, overflow: HTTPParseError)
        throws(HTTPParseError) -> (length: Int, total: Int)?
    {
        guard let lineFeed = self.buffer.firstIndex(of: UInt8(ascii: "\n"), from: self.scanOffset) else {
            self.scanOffset = self.buffer.count
            if self.buffer.count > limit { throw overflow }
            return nil
        }
        self.scanOffset = 0
        let total = lineFeed + 1
        guard total <= limit else { throw overflow }
        var length = lineFeed
        if length > 0 && self.buffer[length - 1] == UInt8(ascii: "\r") { length -= 1 }
        return (length, total)
    }

    private mutating func processHeadLine(length: Int, total: Int) throws(HTTPParseError) -> HTTPResponseEvent? {
        let line = self.buffer.slice(from: 0, length: length)
        if self.status == nil {
            // Empty lines before a status line are ignored (RFC 9112 §2.2); they still count
            // against the head size.
            if length > 0 {
                try self.parseStatusLine(line)
            }
            self.buffer.consume(total)
            self.headBytes += total
            return nil
        }
        self.buffer.consume(total)
        self.headBytes += total
        if length == 0 {
            return try self.completeHead()
        }
        self.headFieldCount += 1
        guard self.headFieldCount <= self.limits.maxHeaderCount else {
            throw HTTPParseError(.tooManyHeaders, "more than \(self.limits.maxHeaderCount) header fields")
        }
        let field = try HTTPFieldLine.parse(line)
        self.headers.add(name: field.name, value: field.value)
        return nil
    }

    private mutating func processTrailerLine(length: Int, total: Int) throws(HTTPParseError) {
        let line = self.buffer.slice(from: 0, length: length)
        if length > 0 {
            self.headFieldCount += 1
            guard self.headFieldCount <= self.limits.maxHeaderCount else {
                throw HTTPParseError(.tooManyHeaders, "more than \(self.limits.maxHeaderCount) trailer fields")
            }
            try HTTPFieldLine.validate(line)
        }
        self.buffer.consume(total)
        self.headBytes += total
        if length == 0 {
            self.headBytes = 0
            self.headFieldCount = 0
            self.state = .emitEnd
        }
    }

    /// `HTTP/1.x SP 3DIGIT SP reason` (RFC 9112 §4); the space and reason may be missing.
    private mutating func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        let invalid = HTTPParseError(.invalidStatusLine, "the status line is not HTTP/1.x NNN reason")
        guard line.count >= 12 else { throw invalid }
        let start = line.startIndex
        let prefix: [UInt8] = Array("HTTP/1.".utf8)
        for offset in 0..<prefix.count where line[start + offset] != prefix[offset] { throw invalid }
        let minor = line[start + 7]
        guard Self.isDigit(minor), line[start + 8] == UInt8(ascii: " ") else { throw invalid }
        var status = 0
        for offset in 9..<12 {
            let digit = line[start + offset]
            guard Self.isDigit(digit) else { throw invalid }
            status = status * 10 + Int(digit - UInt8(ascii: "0"))
        }
        guard status >= 100 else { throw invalid }
        var reason = ""
        if line.count > 12 {
            guard line[start + 12] == UInt8(ascii: " ") else { throw invalid }
            let reasonBytes = line[(start + 13)...]
            for byte in reasonBytes where HTTPFieldLine.isForbiddenInValue(byte) { throw invalid }
            reason = HTTPFieldLine.decode(reasonBytes)
        }
        self.status = status
        self.versionMinor = Int(minor - UInt8(ascii: "0"))
        self.reason = reason
    }

    private mutating func completeHead() throws(HTTPParseError) -> HTTPResponseEvent? {
        let status = self.status ?? 0
        let head = HTTPResponseHead(
            status: status, reason: self.reason, headers: self.headers,
            versionMinor: self.versionMinor)
        self.resetHead()

        if status < 200 && status != 101 {
            self.informationalCount += 1
            guard self.informationalCount <= self.limits.maxInformationalResponses else {
                throw HTTPParseError(
                    .tooManyInformationalResponses,
                    "more than \(self.limits.maxInformationalResponses) interim 1xx responses")
            }
            return nil
        }
        self.informationalCount = 0
        let method = self.pendingMethods.isEmpty ? .other : self.pendingMethods.removeFirst()
        let isHEAD = method == .head

        if status == 101 || (method == .connect && (200..<300).contains(status)) {
            self.lastResponseAllowsReuse = false
            self.state = .upgraded
            return .head(head)
        }

        var allowsReuse = head.isKeepAlive
        let hasTransferEncoding = head.headers.contains(name: "Transfer-Encoding")
        let hasContentLength = head.headers.contains(name: "Content-Length")
        if isHEAD || status == 204 || status == 304 {
            self.state = .emitEnd
        } else if hasTransferEncoding {
            // RFC 9112 §6.3 (3, 4): Transfer-Encoding overrides Content-Length; a message with
            // both may be a smuggling attempt, so the connection is not reused after it.
            if hasContentLength { allowsReuse = false }
            if Self.lastCodingIsChunked(in: head.headers) {
                self.state = .chunkSizeLine
            } else {
                allowsReuse = false
                self.state = .closeDelimitedBody
            }
        } else if hasContentLength {
            let length = try Self.contentLength(in: head.headers)
            self.state = length == 0 ? .emitEnd : .fixedBody(remaining: length)
        } else {
            allowsReuse = false
            self.state = .closeDelimitedBody
        }
        self.lastResponseAllowsReuse = allowsReuse
        return .head(head)
    }

    private mutating func resetHead() {
        self.status = nil
        self.reason = ""
        self.versionMinor = 1
        self.headers = HTTPHeaders()
        self.headBytes = 0
        self.headFieldCount = 0
    }
}
