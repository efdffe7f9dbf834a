/// The lines the tools print on stdout, each ending with a newline.
package enum OutputLine {
    /// An event `sio` received: `{"event":"name","args":[...]}`.
    package static func socketEvent(_ name: String, arguments: [JSON]) -> String {
        JSON.object([JSON.Member("event", .string(name)), JSON.Member("args", .array(arguments))]).serialized + "\n"
    }

    /// The ack of an event `sio` emitted: `{"event":"name","ack":[...]}`.
    package static func socketAck(_ name: String, items: [JSON]) -> String {
        JSON.object([JSON.Member("event", .string(name)), JSON.Member("ack", .array(items))]).serialized + "\n"
    }

    /// A Server-Sent Event as `sse` prints it.
    ///
    /// - `.plain`: the data, then a newline (a multi-line data field prints as several lines);
    /// - `.json`: `{"type":...,"data":...,"id":...}`; `type` is `message` when the event names
    ///   none (WHATWG's default), `id` is `null` when there is none.
    package static func serverSentEvent(type: String?, data: String?, id: String?, format: SSEOptions.Format) -> String {
        switch format {
        case .plain:
            return (data ?? "") + "\n"
        case .json:
            let type = type.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
            return JSON.object([
                JSON.Member("type", .string(type)),
                JSON.Member("data", .string(data ?? "")),
                JSON.Member("id", id.map(JSON.string) ?? .null),
            ]).serialized + "\n"
        }
    }
}

/// One line of `sio`'s interactive input: `event [json ...]`.
package struct EmitLine: Sendable, Equatable {
    package var event: String
    package var arguments: [JSON]

    package init(event: String, arguments: [JSON]) {
        self.event = event
        self.arguments = arguments
    }

    /// Reads `line`: the event name as a word (up to the first space or tab) or a JSON string
    /// (for names with spaces), then JSON values separated by whitespace.
    ///
    /// - Returns: `nil` for an empty line or a comment (`#` first).
    /// - Throws: ``JSONSyntaxError`` when the name or an argument is not JSON; its offset is
    ///   in the line's UTF-8 bytes.
    package static func parse(_ line: String) throws(JSONSyntaxError) -> EmitLine? {
        let trimmed = line.trimmingSpacesAndTabs()
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let event: String
        let rest: Substring
        if trimmed.hasPrefix("\"") {
            var parser = JSONParser(Substring(trimmed))
            guard case .string(let name) = try parser.parseValue() else {
                throw JSONSyntaxError(offset: 0, reason: "expected the event name")
            }
            event = name
            // After the closing quote: an ASCII byte, so a character boundary.
            rest = trimmed[trimmed.utf8.index(trimmed.startIndex, offsetBy: parser.position)...]
        } else {
            let end = trimmed.firstIndex { $0 == " " || $0 == "\t" } ?? trimmed.endIndex
            event = String(trimmed[..<end])
            rest = trimmed[end...]
        }
        do {
            return EmitLine(event: event, arguments: try JSON.parseSequence(rest))
        } catch {
            let offset = trimmed.utf8.count - rest.utf8.count + error.offset
            throw JSONSyntaxError(offset: offset, reason: error.reason)
        }
    }
}
