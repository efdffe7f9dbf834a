// Fuzz target: HTTPResponseParser (status line, fields, Content-Length, chunked bodies with
// extensions and trailers, close-delimited bodies, 1xx, 101 upgrades, pipelined HEAD).
//
// Properties: parsing the input whole and cut into fuzzer-chosen pieces gives the same heads,
// the same body bytes, the same end markers and the same error; every head holds at most
// maxHeaderCount fields; while a line is incomplete the parser buffers at most its line limit
// plus one append; a Content-Length body delivers exactly that many bytes.
import HTTP1Codec

enum Event: Equatable {
    case head(HTTPResponseHead)
    case body([UInt8])
    case end
    case upgradedRemainder([UInt8])
}

struct Outcome: Equatable {
    var events: [Event] = []
    var error: HTTPParseError.Kind?

    /// Joins consecutive body pieces (their cut points depend on the input split).
    mutating func record(_ event: HTTPResponseEvent) {
        switch event {
        case .head(let head): self.events.append(.head(head))
        case .end: self.events.append(.end)
        case .body(let bytes):
            require(!bytes.isEmpty, "empty body event")
            if case .body(let previous)? = self.events.last {
                self.events[self.events.count - 1] = .body(previous + bytes)
            } else {
                self.events.append(.body(bytes))
            }
        }
    }
}

func parse(_ chunks: [ArraySlice<UInt8>], limits: HTTPParserLimits, methods: [String]) -> Outcome {
    var parser = HTTPResponseParser(limits: limits)
    for method in methods { parser.expectResponse(toMethod: method) }
    var outcome = Outcome()
    var upgraded = false
    do throws(HTTPParseError) {
        for chunk in chunks {
            parser.append(chunk)
            while let event = try parser.next() {
                outcome.record(event)
                if case .head(let head) = event {
                    require(head.headers.count <= limits.maxHeaderCount, "\(head.headers.count) header fields")
                    if head.status == 101 { upgraded = true }
                }
            }
            if !upgraded {
                // An incomplete line holds at most its limit plus the bytes of one append.
                let bound = max(limits.maxHeaderBytes, limits.maxChunkSizeLineBytes) + chunk.count
                require(parser.bufferedByteCount <= bound,
                        "\(parser.bufferedByteCount) bytes buffered, bound \(bound)")
            }
        }
        if upgraded {
            outcome.events.append(.upgradedRemainder(parser.takeRemainingBytes()))
        } else {
            while let event = try parser.finish() { outcome.record(event) }
        }
    } catch {
        outcome.error = error.kind
        // A failed parser stays failed.
        var again: HTTPParseError.Kind?
        do throws(HTTPParseError) { _ = try parser.next() } catch { again = error.kind }
        require(again == outcome.error, "a failed parser did not rethrow its error")
    }
    return outcome
}

/// A Content-Length response that completed carries exactly that many body bytes.
func checkContentLengths(_ outcome: Outcome, methods: [String]) {
    var index = 0
    var response = 0
    while index < outcome.events.count {
        guard case .head(let head) = outcome.events[index] else { index += 1; continue }
        let isHEAD = response < methods.count && methods[response] == "HEAD"
        response += 1
        index += 1
        var body: [UInt8] = []
        if index < outcome.events.count, case .body(let bytes) = outcome.events[index] {
            body = bytes
            index += 1
        }
        guard index < outcome.events.count, outcome.events[index] == .end else { continue }
        let lengths = head.headers.values(name: "Content-Length")
        if !isHEAD, head.status >= 200, head.status != 204, head.status != 304,
           head.headers.values(name: "Transfer-Encoding").isEmpty,
           let first = lengths.first, let length = Int(first.split(separator: ",").first ?? "") {
            require(body.count == length, "Content-Length \(length) but \(body.count) body bytes")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitChoice = input.byte()
    let methodChoice = input.byte()
    let splitSeed = input.uint16()
    // Small limits half of the time, so the limit paths are reachable with short inputs.
    let limits = limitChoice & 1 == 0
        ? HTTPParserLimits()
        : HTTPParserLimits(maxHeaderBytes: 16 + Int(limitChoice >> 1) * 4, maxHeaderCount: Int(limitChoice >> 4),
                           maxChunkSizeLineBytes: 4 + Int(limitChoice >> 3), maxInformationalResponses: Int(limitChoice >> 5))
    let methods = (0..<Int(methodChoice & 3)).map { bit in methodChoice >> (2 + bit) & 1 == 1 ? "HEAD" : "GET" }
    let bytes = input.rest()

    let whole = parse([bytes[...]], limits: limits, methods: methods)
    let split = parse(pieces(of: bytes, seed: splitSeed), limits: limits, methods: methods)
    require(whole == split, "whole and split parses differ:\n\(whole)\n\(split)")
    checkContentLengths(whole, methods: methods)
    return 0
}
