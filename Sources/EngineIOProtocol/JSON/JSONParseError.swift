/// Why a JSON text was rejected by ``JSONParser``.
///
/// Every malformed input maps to one of these kinds with the byte offset where parsing
/// stopped; the parser never traps (RFC 8259 sections 2-8 define what is accepted).
package struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of the problem.
    package enum Kind: Sendable, Hashable {
        /// The text ended inside a value (truncated input, or empty input).
        case unexpectedEnd
        /// A byte that cannot start or continue the value at this point.
        case unexpectedByte(UInt8)
        /// A number that breaks the RFC 8259 section 6 grammar (`01`, `1.`, `-`, `1e`).
        case invalidNumber
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case invalidEscape
        /// `\u` not followed by four hex digits.
        case invalidUnicodeEscape
        /// A `\uD800`-`\uDFFF` escape that is not part of a high/low surrogate pair.
        case loneSurrogate
        /// An unescaped control character (U+0000-U+001F) inside a string (RFC 8259 section 7).
        case controlCharacterInString
        /// Bytes that are not well-formed UTF-8 (RFC 8259 section 8.1, RFC 3629).
        case invalidUTF8
        /// Arrays and objects nested deeper than the parser's limit.
        case depthLimitExceeded(limit: Int)
        /// Non-whitespace after the top-level value.
        case trailingData
    }

    /// The class of the problem.
    package var kind: Kind
    /// The byte offset in the input where the problem was found.
    package var offset: Int

    /// An error of `kind` found at byte `offset`.
    package init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    package var description: String {
        "JSONParseError(\(self.kind) at byte \(self.offset))"
    }

    /// The problem in a few English words, for a person reading an error message
    /// (`unexpected character ','`, `unexpected end of input`); without the offset.
    ///
    /// The command-line tools print it after the offset: `invalid JSON at offset 7: unexpected
    /// character 'l'`.
    package var reason: String {
        switch self.kind {
        case .unexpectedEnd:
            return "unexpected end of input"
        case .unexpectedByte(let byte):
            return "unexpected character '\(Self.printable(byte))'"
        case .invalidNumber:
            return "invalid number"
        case .invalidEscape:
            return "invalid escape"
        case .invalidUnicodeEscape:
            return "expected 4 hex digits"
        case .loneSurrogate:
            return "unpaired surrogate"
        case .controlCharacterInString:
            return "control character in a string (escape it)"
        case .invalidUTF8:
            return "invalid UTF-8"
        case .depthLimitExceeded(let limit):
            return "nesting deeper than \(limit) levels"
        case .trailingData:
            return "unexpected text after the value"
        }
    }

    /// A printable ASCII byte as itself, any other as `\xNN`.
    private static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(Unicode.Scalar(byte)) : "\\x" + String(byte, radix: 16)
    }
}
