public import Foundation
import SSEProtocol

extension ServerEvent {
    /// Parses one event from complete event-stream text, without a connection.
    ///
    /// `data` is read as one event block: blank lines before it are skipped, the block ends
    /// at the first empty line (later text is ignored) or at the end of `data`. In
    /// ``EventSource/Mode/default`` mode the fields follow the WHATWG rules (`data` lines
    /// joined with LF, one space after the colon removed, `id` with U+0000 ignored, comments
    /// and unknown fields skipped); in ``EventSource/Mode/dataOnly`` mode the block is read
    /// whole (see ``EventSource/Mode/dataOnly``).
    ///
    /// ```swift
    /// let event = ServerEvent.parse(from: Data("event: add\ndata: 1\n\n".utf8))
    /// // event?.event == "add", event?.data == "1"
    /// ```
    ///
    /// - Returns: the event, or `nil` when the block gives an event whose fields are all empty.
    public static func parse(from data: Data, mode: EventSource.Mode = .default) -> ServerEvent? {
        let lines = Self.lines(of: data)
        switch mode {
        case .default:
            return Self.standardEvent(from: lines)
        case .dataOnly:
            var block: [UInt8] = []
            var started = false
            for line in lines {
                if line.isEmpty {
                    if started { break } else { continue }
                }
                if line.first == UInt8(ascii: ":") { continue }
                if started { block.append(UInt8(ascii: "\n")) }
                block += line
                started = true
            }
            return started ? DataOnlyEventParser.event(fromBlock: block) : nil
        }
    }

    /// Every line of `data`; a last line without a terminator counts.
    private static func lines(of data: Data) -> [[UInt8]] {
        var scanner = SSELineScanner(maximumLineLength: Int.max)
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var bytes = [UInt8](data)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { raw in
            try? scanner.scan(raw) { fragment, endsLine in
                current += fragment
                if endsLine {
                    lines.append(current)
                    current = []
                }
            }
        }
        return lines
    }

    /// The WHATWG field rules (HTML §9.2.6) applied to the first block of `lines`.
    private static func standardEvent(from lines: [[UInt8]]) -> ServerEvent? {
        var event = ServerEvent()
        var dataLines: [String] = []
        var started = false
        for line in lines {
            if line.isEmpty {
                if started { break } else { continue }
            }
            if line.first == UInt8(ascii: ":") { continue }
            started = true
            var name = line[...]
            var value: ArraySlice<UInt8> = []
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                name = line[..<colon]
                value = line[(colon + 1)...]
                if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            }
            let text = String(decoding: value, as: UTF8.self)
            switch String(decoding: name, as: UTF8.self) {
            case "data": dataLines.append(text)
            case "event": event.event = text.isEmpty ? nil : text
            case "id": if !value.contains(0) { event.id = text }
            default: break
            }
        }
        if !dataLines.isEmpty { event.data = dataLines.joined(separator: "\n") }
        return event.isEmpty ? nil : event
    }
}
