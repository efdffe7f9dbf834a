package import EngineIOProtocol

// The tools read and print JSON with the package's one parser and value type
// (EngineIOProtocol's `JSONParser`, `JSONValue`). What is theirs alone is here: the nesting
// they accept, the way they print a `Double`, and the wording of an error.

extension JSONValue {
    /// The deepest nesting the tools accept in an argument or an input line: twice the
    /// protocol parser's default, as the tools have always accepted.
    package static let commandLineMaximumDepth = 256

    /// Parses `text`, a command-line argument (`--auth`, `--data`), as exactly one JSON value
    /// (surrounding whitespace allowed).
    ///
    /// ```swift
    /// let value = try JSONValue(commandLineArgument: #"{"token": "abc", "retries": 3}"#)
    /// print(value.commandLineText)   // {"token":"abc","retries":3}
    /// ```
    ///
    /// - Throws: ``JSONParseError`` for anything else, including text after the value.
    package init(commandLineArgument text: String) throws(JSONParseError) {
        self = try JSONParser(maximumDepth: Self.commandLineMaximumDepth).parse(text)
    }

    /// The compact JSON text the tools print on stdout and stderr: members in order, no spaces.
    ///
    /// It is ``serializedString()`` except for a ``double(_:)``, which prints in Swift's
    /// shortest round-tripping form, as the tools always printed it: `2.0`, `1e-07`, `-0.0`,
    /// `1e+21` (`serializedString()` follows `JSON.stringify`: `2`, `1e-7`, `0`, `1e+21`). A
    /// non-finite double prints `null`. The tools never hold a ``binary(_:)`` value (they print
    /// an attachment as `{"$binary":"<base64>"}`); one would print as its Socket.IO placeholder.
    package var commandLineText: String {
        var buffer: [UInt8] = []
        self.appendCommandLineText(to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    private func appendCommandLineText(to buffer: inout [UInt8]) {
        switch self {
        case .double(let value):
            buffer.append(contentsOf: (value.isFinite ? value.description : "null").utf8)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                element.appendCommandLineText(to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            for (index, member) in object.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                JSONStringEscaper.append(member.key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                member.value.appendCommandLineText(to: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        case .null, .bool, .int, .string, .binary:
            self.serialize(into: &buffer)
        }
    }
}

extension JSONParseError {
    /// The error as the tools print it: `invalid JSON at offset 7: unexpected character 'l'`
    /// (the offset in UTF-8 bytes).
    package var commandLineDescription: String {
        "invalid JSON at offset \(self.offset): \(self.reason)"
    }
}
