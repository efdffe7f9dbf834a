package import EngineIOProtocol

/// The lines the tools print on stdout, each ending with a newline.
package enum OutputLine {
    /// An event `sio` received: `{"event":"name","args":[...]}`.
    package static func socketEvent(_ name: String, arguments: [JSONValue]) -> String {
        JSONValue.object(["event": .string(name), "args": .array(arguments)]).commandLineText + "\n"
    }

    /// The ack of an event `sio` emitted: `{"event":"name","ack":[...]}`.
    package static func socketAck(_ name: String, items: [JSONValue]) -> String {
        JSONValue.object(["event": .string(name), "ack": .array(items)]).commandLineText + "\n"
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
            return JSONValue.object([
                "type": .string(type),
                "data": .string(data ?? ""),
                "id": id.map(JSONValue.string) ?? .null,
            ]).commandLineText + "\n"
        }
    }
}

/// One line of `sio`'s interactive input: `event [json ...]`.
package struct EmitLine: Sendable, Equatable {
    package var event: String
    package var arguments: [JSONValue]

    package init(event: String, arguments: [JSONValue]) {
        self.event = event
        self.arguments = arguments
    }

    /// Reads `line`: the event name as a word (up to the first space or tab) or a JSON string
    /// (for names with spaces), then JSON values separated by whitespace (EngineIOProtocol's
    /// ``JSONParser/parseSequence(_:)``: `1 2w` is an error, not `1`, `2` and `w`).
    ///
    /// - Returns: `nil` for an empty line or a comment (`#` first).
    /// - Throws: ``JSONParseError`` when the name or an argument is not JSON; its offset is in
    ///   the UTF-8 bytes of the line without its leading spaces and tabs.
    package static func parse(_ line: String) throws(JSONParseError) -> EmitLine? {
        let trimmed = line.trimmingSpacesAndTabs()
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let parser = JSONParser(maximumDepth: JSONValue.commandLineMaximumDepth)
        if trimmed.hasPrefix("\"") {
            // The whole line is a sequence whose first value is the name: it starts with a quote,
            // so that value is a string, or the parse failed.
            let values = try parser.parseSequence(trimmed[...])
            guard case .string(let event)? = values.first else {
                throw JSONParseError(.unexpectedByte(UInt8(ascii: "\"")), at: 0)
            }
            return EmitLine(event: event, arguments: Array(values.dropFirst()))
        }
        let end = trimmed.firstIndex { $0 == " " || $0 == "\t" } ?? trimmed.endIndex
        do {
            return EmitLine(event: String(trimmed[..<end]), arguments: try parser.parseSequence(trimmed[end...]))
        } catch {
            throw JSONParseError(error.kind, at: trimmed.utf8.distance(from: trimmed.startIndex, to: end) + error.offset)
        }
    }
}
