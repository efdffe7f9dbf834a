import Testing

@testable import HTTP1Codec

/// One response stream and what parsing it must produce.
struct ResponseVector: CustomStringConvertible, Sendable {
    var name: String
    var input: String
    var methods: [String] = []
    var expected: [HTTPResponseEvent]
    var error: HTTPParseError.Kind?
    var limits = HTTPParserLimits()

    var description: String { self.name }
}

@Suite struct HTTPResponseParserTests {
    static let vectors: [ResponseVector] = [
        ResponseVector(
            name: "Content-Length body",
            input: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world",
            expected: [
                head(200, "OK", [("Content-Type", "text/plain"), ("Content-Length", "11")]),
                body("hello world"), .end,
            ]),
        ResponseVector(
            name: "chunked with extensions and trailers",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n6 ; x\r\n world\r\n0\r\nExpires: never\r\nX-Sum: 1\r\n\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")]), body("hello world"), .end]),
        ResponseVector(
            name: "chunked with upper-case hex and leading zeros",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n00A\r\n0123456789\r\n000\r\n\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "gzip, Chunked")]), body("0123456789"), .end]),
        ResponseVector(
            name: "close-delimited HTTP/1.0 body ends at end of input",
            input: "HTTP/1.0 200 OK\r\nServer: old\r\n\r\nuntil the connection closes",
            expected: [head(200, "OK", [("Server", "old")], minor: 0), body("until the connection closes"), .end]),
        ResponseVector(
            name: "non-chunked transfer coding is read until close",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc",
            expected: [head(200, "OK", [("Transfer-Encoding", "gzip")]), body("abc"), .end]),
        ResponseVector(
            // RFC 9110 §5.6.1: empty list elements are ignored, so the final coding is chunked.
            name: "a Transfer-Encoding list ending in chunked, with empty elements and OWS",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip , ,CHUNKED ,\r\n\r\n1\r\nx\r\n0\r\n\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "gzip , ,CHUNKED ,")]), body("x"), .end]),
        ResponseVector(
            name: "keep-alive: three responses back to back",
            input: "HTTP/1.1 204 No Content\r\nContent-Length: 99\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
            expected: [
                head(204, "No Content", [("Content-Length", "99")]), .end,
                head(200, "OK", [("Content-Length", "2")]), body("ok"), .end,
                head(200, "OK", [("Transfer-Encoding", "chunked")]), body("x"), .end,
            ]),
        ResponseVector(
            name: "HEAD response has no body despite Content-Length",
            input: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz",
            methods: ["HEAD", "GET"],
            expected: [
                head(200, "OK", [("Content-Length", "10")]), .end,
                head(200, "OK", [("Content-Length", "1")]), body("z"), .end,
            ]),
        ResponseVector(
            name: "304 has no body",
            input: "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nTransfer-Encoding: chunked\r\n\r\n",
            expected: [head(304, "Not Modified", [("ETag", "\"x\""), ("Transfer-Encoding", "chunked")]), .end]),
        ResponseVector(
            name: "100 Continue and 103 Early Hints are skipped",
            input: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                + "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n",
            expected: [head(201, "Created", [("Content-Length", "0")]), .end]),
        ResponseVector(
            name: "bare LF line ends, missing reason, OWS around values",
            input: "HTTP/1.1 200\nA:   spaced \t\nB:\nContent-Length: 3\n\nabc",
            expected: [head(200, "", [("A", "spaced"), ("B", ""), ("Content-Length", "3")]), body("abc"), .end]),
        ResponseVector(
            name: "equal repeated Content-Length values are accepted",
            input: "HTTP/1.1 200 OK\r\nContent-Length: 4, 4\r\ncontent-length: 4\r\n\r\nabcd",
            expected: [head(200, "OK", [("Content-Length", "4, 4"), ("content-length", "4")]), body("abcd"), .end]),
        ResponseVector(
            name: "Transfer-Encoding overrides Content-Length",
            input: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            expected: [
                head(200, "OK", [("Content-Length", "100"), ("Transfer-Encoding", "chunked")]),
                body("abc"), .end,
            ]),
        ResponseVector(
            name: "UTF-8 and Latin-1 values, empty lines before the status line",
            input: "\r\nHTTP/1.1 200 Gr\u{FC}\u{DF}e\r\nX-Name: caf\u{E9}\r\nContent-Length: 0\r\n\r\n",
            expected: [head(200, "Gr\u{FC}\u{DF}e", [("X-Name", "caf\u{E9}"), ("Content-Length", "0")]), .end]),

        // MARK: Errors
        ResponseVector(
            name: "obsolete line folding is rejected",
            input: "HTTP/1.1 200 OK\r\nX-Long: first\r\n  continued\r\nContent-Length: 0\r\n\r\n",
            expected: [], error: .invalidHeader),
        ResponseVector(
            name: "space before the colon is rejected",
            input: "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
            expected: [], error: .invalidHeader),
        ResponseVector(
            name: "a line without a colon is rejected",
            input: "HTTP/1.1 200 OK\r\nnot a header\r\n\r\n",
            expected: [], error: .invalidHeader),
        ResponseVector(
            name: "a bare CR inside a value is rejected",
            input: "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n",
            expected: [], error: .invalidHeader),
        ResponseVector(
            name: "conflicting Content-Length values are rejected",
            input: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
            expected: [], error: .invalidContentLength),
        ResponseVector(
            name: "a non-numeric Content-Length is rejected",
            input: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            expected: [], error: .invalidContentLength),
        ResponseVector(
            name: "an absurd Content-Length is rejected",
            input: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
            expected: [], error: .invalidContentLength),
        ResponseVector(
            name: "HTTP/2 status line is rejected",
            input: "HTTP/2 200 OK\r\n\r\n",
            expected: [], error: .invalidStatusLine),
        ResponseVector(
            name: "a non-HTTP status line is rejected",
            input: "ICY 200 OK\r\n\r\n",
            expected: [], error: .invalidStatusLine),
        ResponseVector(
            name: "a two-digit status is rejected",
            input: "HTTP/1.1 20 OK\r\n\r\n",
            expected: [], error: .invalidStatusLine),
        ResponseVector(
            name: "a non-hex chunk size is rejected after the head",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")])], error: .invalidChunk),
        ResponseVector(
            name: "an overflowing chunk size is rejected",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")])], error: .invalidChunk),
        ResponseVector(
            name: "chunk data must end with CRLF",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")]), body("abc")], error: .invalidChunk),
        ResponseVector(
            name: "a chunked body truncated at end of input",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n10\r\nonly part",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")]), body("helloonly part")],
            error: .truncatedBody),
        ResponseVector(
            name: "a chunked body without its last chunk",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")]), body("hello")],
            error: .truncatedBody),
        ResponseVector(
            name: "a Content-Length body truncated at end of input",
            input: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            expected: [head(200, "OK", [("Content-Length", "10")]), body("short")], error: .truncatedBody),
        ResponseVector(
            name: "a head truncated at end of input",
            input: "HTTP/1.1 200 OK\r\nContent-Le",
            expected: [], error: .truncatedHead),
        ResponseVector(
            name: "an oversized head is rejected",
            input: "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 200) + "\r\n\r\n",
            expected: [], error: .headersTooLarge,
            limits: HTTPParserLimits(maxHeaderBytes: 128)),
        ResponseVector(
            name: "an oversized trailer section is rejected",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " + String(repeating: "t", count: 200) + "\r\n\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")])], error: .headersTooLarge,
            limits: HTTPParserLimits(maxHeaderBytes: 128)),
        ResponseVector(
            name: "too many header fields",
            input: "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",
            expected: [], error: .tooManyHeaders,
            limits: HTTPParserLimits(maxHeaderCount: 2)),
        ResponseVector(
            name: "a chunk-size line longer than its limit",
            input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "e", count: 100) + "\r\nhello\r\n",
            expected: [head(200, "OK", [("Transfer-Encoding", "chunked")])], error: .invalidChunk,
            limits: HTTPParserLimits(maxChunkSizeLineBytes: 32)),
        ResponseVector(
            name: "too many interim responses",
            input: String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 3) + "HTTP/1.1 200 OK\r\n\r\n",
            expected: [], error: .tooManyInformationalResponses,
            limits: HTTPParserLimits(maxInformationalResponses: 2)),
    ]

    @Test("every vector, fed whole, byte by byte and split at every offset", arguments: Self.vectors)
    func vectorInEveryFeedingMode(_ vector: ResponseVector) {
        let input = Array(vector.input.utf8)
        let expected = ParseOutcome(events: vector.expected, error: vector.error).normalized
        for feeding in Feeding.allModes(forLength: input.count) {
            let outcome = parse(input, feeding: feeding, methods: vector.methods, limits: vector.limits).normalized
            #expect(outcome == expected, "\(feeding)")
        }
    }

    @Test func bodyIsDeliveredAsItArrivesNotBuffered() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nfirst".utf8))
        #expect(try parser.next() == head(200, "OK", [("Content-Length", "1000000")]))
        #expect(try parser.next() == body("first"))
        #expect(try parser.next() == nil)
        parser.append(Array("second".utf8))
        #expect(try parser.next() == body("second"))
        #expect(try parser.next() == nil)
        #expect(parser.hasBufferedBytes == false)
    }

    @Test func switchingProtocolsStopsAfterTheHeadAndHandsBackTheRest() throws {
        let frame: [UInt8] = [0x81, 0x02, 0x68, 0x69]
        let input = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8) + frame
        for feeding in Feeding.allModes(forLength: input.count) {
            var parser = HTTPResponseParser()
            var events: [HTTPResponseEvent] = []
            for piece in feeding.pieces(of: input) {
                parser.append(piece)
                while let event = try parser.next() { events.append(event) }
            }
            #expect(
                events == [head(101, "Switching Protocols", [("Upgrade", "websocket"), ("Connection", "Upgrade")])],
                "\(feeding)")
            #expect(parser.takeRemainingBytes() == frame, "\(feeding)")
            #expect(parser.canReuseConnection == false)
        }
    }

    @Test func connectionReuseFollowsFramingAndConnectionField() throws {
        func reusable(_ response: String) throws -> Bool {
            var parser = HTTPResponseParser()
            parser.append(Array(response.utf8))
            while try parser.next() != nil {}
            return parser.canReuseConnection
        }
        #expect(try reusable("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try reusable("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
        #expect(try !reusable("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
        #expect(try !reusable("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try reusable("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok"))
        // Connection is a token list, compared without case: any `close` in it ends reuse.
        #expect(try !reusable("HTTP/1.1 200 OK\r\nConnection: keep-alive, ,CLOSE \r\nContent-Length: 2\r\n\r\nok"))
        #expect(try reusable("HTTP/1.0 200 OK\r\nConnection: Upgrade , KEEP-ALIVE\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try !reusable("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
        // Unfinished body, or extra bytes after the response: not reusable.
        #expect(try !reusable("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok"))
        #expect(try !reusable("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"))
    }

    @Test func cleanEndOfInputBetweenResponsesIsNotAnError() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(try parser.next() != nil)
        #expect(try parser.next() == .end)
        #expect(try parser.finish() == nil)
        #expect(parser.canReuseConnection == false)
    }

    @Test func aFailedParserKeepsFailing() {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/9 200 OK\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.next() }
        parser.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.next() }
    }

    @Test func anEndlessHeaderLineIsRejectedBeforeItIsBuffered() {
        var parser = HTTPResponseParser(limits: HTTPParserLimits(maxHeaderBytes: 1024))
        parser.append(Array("HTTP/1.1 200 OK\r\nX: ".utf8))
        #expect(throws: Never.self) { try parser.next() }
        // One append far past the limit without a line end fails the parser at once...
        parser.append([UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20))
        #expect(parser.bufferedByteCount < 1024)
        let error = #expect(throws: HTTPParseError.self) { try parser.next() }
        #expect(error?.kind == .headersTooLarge)
    }

    @Test func anEndlessHeaderFedInSmallPiecesStaysBounded() {
        var parser = HTTPResponseParser(limits: HTTPParserLimits(maxHeaderBytes: 1024))
        parser.append(Array("HTTP/1.1 200 OK\r\nX: ".utf8))
        var failure: HTTPParseError?
        for _ in 0..<1000 {
            parser.append([UInt8](repeating: UInt8(ascii: "a"), count: 100))
            do { _ = try parser.next() } catch {
                failure = error
                break
            }
            #expect(parser.bufferedByteCount <= 1024 + 100)
        }
        #expect(failure?.kind == .headersTooLarge)
    }

    @Test func aLargeBodyFedInSmallPiecesArrivesIntact() throws {
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var chunked: [UInt8] = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var offset = 0
        while offset < payload.count {
            let size = min(4093, payload.count - offset)
            chunked += Array(String(size, radix: 16).utf8) + [13, 10] + payload[offset..<(offset + size)] + [13, 10]
            offset += size
        }
        chunked += Array("0\r\n\r\n".utf8)
        var parser = HTTPResponseParser()
        var received: [UInt8] = []
        var ended = false
        var start = 0
        while start < chunked.count {
            let end = min(chunked.count, start + 777)
            parser.append(chunked[start..<end])
            start = end
            while let event = try parser.next() {
                if case .body(let bytes) = event { received += bytes }
                if case .end = event { ended = true }
            }
        }
        #expect(ended)
        #expect(received == payload)
    }
}
