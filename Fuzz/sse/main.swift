// Fuzz target: SSEParser, the WHATWG event-stream parser (EventSource's default mode), with
// SSELineScanner underneath.
//
// Properties: the stream parsed whole and cut into fuzzer-chosen pieces gives the same events,
// retries, comments and error; without a limit in reach the outputs equal those of the naive
// oracle the unit tests use (Tests/SSEProtocolTests/ReferenceEventStreamParser.swift: decode
// the whole stream first, then split lines); with limits the outputs before the error are a
// prefix of the oracle's, no event carries more data than maximumEventSize bytes (counted in
// Unicode scalars, each of which comes from at least one byte) and no comment more than
// maximumLineLength; a failed parser rethrows until reset, and works again after it.
import SSEProtocol

struct Outcome: Equatable {
    var outputs: [SSEParser.Output] = []
    var error: SSEParserError?
}

func parse(_ chunks: [ArraySlice<UInt8>], configuration: SSEParser.Configuration) -> Outcome {
    var parser = SSEParser(configuration: configuration)
    var outcome = Outcome()
    do throws(SSEParserError) {
        for chunk in chunks {
            try parser.feed(Array(chunk)) { outcome.outputs.append($0) }
        }
    } catch {
        outcome.error = error
        var again: SSEParserError?
        do throws(SSEParserError) { try parser.feed([0x0A]) { _ in } } catch { again = error }
        require(again == error, "a failed parser did not rethrow its error")
        parser.reset()
        guard configuration.maximumLineLength >= 7, configuration.maximumEventSize >= 1 else { return outcome }
        var afterReset: [SSEParser.Output] = []
        do throws(SSEParserError) {
            try parser.feed(Array("data: x\n\n".utf8)) { afterReset.append($0) }
        } catch {
            require(false, "reset parser fails: \(error)")
        }
        require(afterReset.count == 1, "reset parser does not parse")
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSE(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let lineChoice = input.byte()
    let eventChoice = input.byte()
    let seed = input.uint16()
    let bytes = input.rest()
    let limited = flags & 2 != 0
    let configuration = SSEParser.Configuration(
        maximumLineLength: limited ? Int(lineChoice) : 16 << 20,
        maximumEventSize: limited ? Int(eventChoice) : 16 << 20,
        reportsComments: flags & 1 != 0)

    let whole = parse([bytes[...]], configuration: configuration)
    let split = parse(pieces(of: bytes, seed: seed), configuration: configuration)
    require(whole == split, "whole and split parses differ:\n\(whole)\n\(split)")

    let reference = ReferenceEventStreamParser.parse(bytes, reportsComments: configuration.reportsComments)
    if whole.error == nil {
        require(whole.outputs == reference, "parser and oracle differ:\n\(whole.outputs)\n\(reference)")
    } else {
        require(reference.starts(with: whole.outputs), "outputs before the error are not the oracle's")
    }
    for output in whole.outputs {
        switch output {
        case .event(let event):
            require(event.data.unicodeScalars.count <= configuration.maximumEventSize, "event over the size limit")
        case .comment(let text):
            require(text.unicodeScalars.count <= configuration.maximumLineLength, "comment over the line limit")
        case .retry(let milliseconds):
            require(milliseconds >= 0, "negative retry")
        }
    }
    return 0
}
