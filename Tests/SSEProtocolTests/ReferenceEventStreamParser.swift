@testable import SSEProtocol

/// A deliberately naive reading of WHATWG HTML §9.2.5–9.2.6 used as an oracle: decode the
/// whole stream to Unicode scalars first, strip one BOM, split into lines, interpret.
/// Slow and simple, so that it is easy to check against the spec text.
enum ReferenceEventStreamParser {
    static func parse(_ bytes: [UInt8], reportsComments: Bool) -> [SSEParser.Output] {
        var scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]), scalars.first == "\u{FEFF}" {
            scalars.removeFirst()
        }
        // Complete lines only: the text after the last terminator is discarded.
        var lines: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\r" {
                lines.append(current)
                current = []
                if index + 1 < scalars.count && scalars[index + 1] == "\n" { index += 1 }
            } else if scalar == "\n" {
                lines.append(current)
                current = []
            } else {
                current.append(scalar)
            }
            index += 1
        }

        var outputs: [SSEParser.Output] = []
        var data = ""
        var type = ""
        var idField: String?
        var lastEventIdBuffer = ""
        var lastEventId = ""
        for line in lines {
            let text = String(String.UnicodeScalarView(line))
            if line.isEmpty {
                lastEventId = lastEventIdBuffer
                if !data.isEmpty {
                    if data.hasSuffix("\n") { data.removeLast() }
                    outputs.append(
                        .event(
                            SSEEvent(
                                type: type.isEmpty ? nil : type, data: data,
                                id: idField, lastEventId: lastEventId)))
                }
                data = ""
                type = ""
                idField = nil
                continue
            }
            if line.first == ":" {
                if reportsComments {
                    var comment = String(String.UnicodeScalarView(line.dropFirst()))
                    // Unicode scalars, not Characters: " " followed by a combining mark is one
                    // Character, and the spec removes the U+0020 code point.
                    if comment.unicodeScalars.first == " " { comment.unicodeScalars.removeFirst() }
                    outputs.append(.comment(comment))
                }
                continue
            }
            var name = text
            var value = ""
            if let colon = line.firstIndex(of: ":") {
                name = String(String.UnicodeScalarView(line[..<colon]))
                value = String(String.UnicodeScalarView(line[(colon + 1)...]))
                if value.unicodeScalars.first == " " { value.unicodeScalars.removeFirst() }
            }
            switch name {
            case "event": type = value
            case "data": data += value + "\n"
            case "id":
                if !value.unicodeScalars.contains("\u{0}") {
                    lastEventIdBuffer = value
                    idField = value
                }
            case "retry":
                if !value.isEmpty && value.unicodeScalars.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }) {
                    outputs.append(.retry(Int(value) ?? Int.max))
                }
            default: break
            }
        }
        return outputs
    }
}
