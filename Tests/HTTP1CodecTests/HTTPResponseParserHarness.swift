@testable import HTTP1Codec

/// Feeds a parser in pieces and records what it produced, for the three feeding modes every
/// decoder test uses: whole, byte by byte, and split at every offset.
struct ParseOutcome: Equatable, CustomStringConvertible {
    var events: [HTTPResponseEvent]
    var error: HTTPParseError.Kind?

    var description: String { "events: \(self.events), error: \(String(describing: self.error))" }

    /// Adjacent `.body` events merged: how a body is cut into chunks depends on the split.
    var normalized: ParseOutcome {
        var merged: [HTTPResponseEvent] = []
        for event in self.events {
            if case .body(let bytes) = event, case .body(let previous)? = merged.last {
                merged[merged.count - 1] = .body(previous + bytes)
            } else {
                merged.append(event)
            }
        }
        return ParseOutcome(events: merged, error: self.error)
    }
}

enum Feeding: CustomStringConvertible {
    case whole
    case byteByByte
    case splitAt(Int)

    var description: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .splitAt(let offset): "split at \(offset)"
        }
    }

    /// Whole, byte by byte, and split in two at every offset.
    static func allModes(forLength length: Int) -> [Feeding] {
        [.whole, .byteByByte] + (1..<max(1, length)).map { .splitAt($0) }
    }

    func pieces(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        switch self {
        case .whole:
            return [bytes[...]]
        case .byteByByte:
            return bytes.indices.map { bytes[$0...$0] }
        case .splitAt(let offset):
            return [bytes[..<offset], bytes[offset...]]
        }
    }
}

/// Feeds `bytes` to a fresh parser; after each piece drains `next()`; at the end drains
/// `finish()` when `endOfInput` is true.
func parse(
    _ bytes: [UInt8], feeding: Feeding, methods: [String] = [], endOfInput: Bool = true,
    limits: HTTPParserLimits = HTTPParserLimits()
) -> ParseOutcome {
    var parser = HTTPResponseParser(limits: limits)
    for method in methods { parser.expectResponse(toMethod: method) }
    var events: [HTTPResponseEvent] = []
    do {
        for piece in feeding.pieces(of: bytes) {
            // Alternate the two append overloads so both are exercised.
            if piece.startIndex % 2 == 0 {
                parser.append(Array(piece))
            } else {
                parser.append(piece)
            }
            while let event = try parser.next() { events.append(event) }
        }
        if endOfInput {
            while let event = try parser.finish() { events.append(event) }
        }
        return ParseOutcome(events: events, error: nil)
    } catch {
        return ParseOutcome(events: events, error: error.kind)
    }
}

extension Array where Element == UInt8 {
    init(_ string: String) { self = Array(string.utf8) }
}

func head(_ status: Int, _ reason: String, _ headers: [(String, String)], minor: Int = 1) -> HTTPResponseEvent {
    .head(HTTPResponseHead(status: status, reason: reason, headers: HTTPHeaders(headers), versionMinor: minor))
}

func body(_ string: String) -> HTTPResponseEvent { .body(Array(string.utf8)) }
