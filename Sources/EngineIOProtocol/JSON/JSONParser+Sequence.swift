// Several JSON values in one text, separated by whitespace: what a line of command-line input
// holds (`sio`'s interactive `event [json ...]`). Not part of any wire protocol; the values are
// read by the same reader, with the same grammar and limits, as ``JSONParser/parse(_:)``.

extension JSONParser {
    /// Parses zero or more JSON values separated by whitespace.
    ///
    /// Each value follows RFC 8259 exactly as ``parse(_:)`` reads it (the same strictness, the
    /// same ``maximumDepth`` for each value). A string, an array or an object ends unambiguously,
    /// so the next value may follow it directly (`"a"[1]`); a number or a literal must be
    /// followed by whitespace or the end, so that `12abc`, `1-2` or `truex` are errors rather
    /// than two values. Empty or all-whitespace input is an empty sequence.
    ///
    /// ```swift
    /// let values = try JSONParser().parseSequence(#"1 "two" {"three":3}[4]"#[...])
    /// // [1, "two", {"three":3}, [4]]
    /// ```
    ///
    /// - Parameter bytes: UTF-8 text.
    /// - Returns: The values in order.
    /// - Throws: ``JSONParseError`` for the first value that does not parse, with its offset in
    ///   `bytes`. A number or a literal directly followed by something other than whitespace
    ///   fails with ``JSONParseError/Kind/unexpectedByte(_:)`` at that byte.
    package func parseSequence(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> [JSONValue] {
        var reader = JSONReader(bytes: bytes, maximumDepth: self.maximumDepth)
        var values: [JSONValue] = []
        reader.skipWhitespace()
        while reader.index < bytes.count {
            let first = bytes[reader.index]
            values.append(try reader.parseValue(depth: 0))
            let endsItself = first == UInt8(ascii: "\"") || first == UInt8(ascii: "[") || first == UInt8(ascii: "{")
            if !endsItself, reader.index < bytes.count, !Self.isWhitespace(bytes[reader.index]) {
                throw JSONParseError(.unexpectedByte(bytes[reader.index]), at: reader.index)
            }
            reader.skipWhitespace()
        }
        return values
    }

    /// Parses zero or more JSON values separated by whitespace, as the overload on bytes does.
    ///
    /// - Throws: ``JSONParseError``, its offset in `text.utf8`.
    package func parseSequence(_ text: Substring) throws(JSONParseError) -> [JSONValue] {
        var text = text
        let result: Result<[JSONValue], JSONParseError> = text.withUTF8 { buffer in
            do throws(JSONParseError) {
                return .success(try self.parseSequence(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}
