/// Why ``HTTPResponseParser`` rejected a response. After one error the parser stays failed.
package struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// The head (or a trailer section) exceeds ``HTTPParserLimits/maxHeaderBytes``.
        case headersTooLarge
        /// More fields than ``HTTPParserLimits/maxHeaderCount``.
        case tooManyHeaders
        /// The status line is not `HTTP/1.x NNN reason`.
        case invalidStatusLine
        /// A malformed field line, including obsolete line folding (RFC 9112 §5.2).
        case invalidHeader
        /// `Content-Length` is not a number, or several values disagree (RFC 9112 §6.3).
        case invalidContentLength
        /// A malformed chunk-size line or a missing CRLF after chunk data (RFC 9112 §7.1).
        case invalidChunk
        /// The connection ended inside a head.
        case truncatedHead
        /// The connection ended before the body's length was reached, or inside a chunked body.
        case truncatedBody
        /// More interim 1xx responses than ``HTTPParserLimits/maxInformationalResponses``.
        case tooManyInformationalResponses
    }

    package var kind: Kind
    /// Human-readable detail; never contains header values or body bytes.
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
