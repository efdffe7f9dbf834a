// Fuzz target: DataOnlyEventParser, EventSource's `.dataOnly` mode (Recouse's reading: each
// block cut once at its first colon), compiled from Sources/EventSource with SSELineScanner.
//
// Properties: the stream parsed whole and cut into fuzzer-chosen pieces gives the same events
// and error; without a limit in reach the events equal a naive model (decode the whole stream,
// strip one BOM, split lines at CRLF/LF/CR, drop comment lines, join each block with LF, read
// it with DataOnlyEventParser.event(fromBlock:)); with a limit the events before the error are
// a prefix of the model's and no field is longer than maximumEventSize (in Unicode scalars).
import SSEProtocol

struct Outcome: Equatable {
    var events: [ServerEvent] = []
    var error: SSEParserError?
}

func parse(_ chunks: [ArraySlice<UInt8>], limit: Int) -> Outcome {
    var parser = DataOnlyEventParser(maximumEventSize: limit)
    var outcome = Outcome()
    do throws(SSEParserError) {
        for chunk in chunks { try parser.feed(Array(chunk)) { outcome.events.append($0) } }
    } catch {
        outcome.error = error
    }
    return outcome
}

func model(_ bytes: [UInt8]) -> [ServerEvent] {
    var scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]), scalars.first == "\u{FEFF}" { scalars.removeFirst() }
    var lines: [[Unicode.Scalar]] = []
    var current: [Unicode.Scalar] = []
    var index = 0
    while index < scalars.count {
        let scalar = scalars[index]
        if scalar == "\r" || scalar == "\n" {
            lines.append(current)
            current = []
            if scalar == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
        } else {
            current.append(scalar)
        }
        index += 1
    }
    var events: [ServerEvent] = []
    var block: [String] = []
    for line in lines {
        if line.isEmpty {
            if !block.isEmpty, let event = DataOnlyEventParser.event(fromBlock: Array(block.joined(separator: "\n").utf8)) {
                events.append(event)
            }
            block = []
        } else if line.first != ":" {
            block.append(String(String.UnicodeScalarView(line)))
        }
    }
    return events
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSEDataOnly(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitChoice = input.byte()
    let seed = input.uint16()
    let bytes = input.rest()
    let limit = limitChoice == 0 ? 16 << 20 : Int(limitChoice)

    let whole = parse([bytes[...]], limit: limit)
    let split = parse(pieces(of: bytes, seed: seed), limit: limit)
    require(whole == split, "whole and split parses differ:\n\(whole)\n\(split)")
    let expected = model(bytes)
    if whole.error == nil {
        require(whole.events == expected, "parser and model differ:\n\(whole.events)\n\(expected)")
    } else {
        require(expected.starts(with: whole.events), "events before the error are not the model's")
    }
    for event in whole.events {
        for field in [event.data, event.id, event.event, event.time].compactMap({ $0 }) + (event.other.map { Array($0.keys) } ?? []) {
            require(field.unicodeScalars.count <= limit, "field over the size limit")
        }
    }
    return 0
}
