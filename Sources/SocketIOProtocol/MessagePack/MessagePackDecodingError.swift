/// Why bytes were rejected by ``MessagePackDecoder``.
///
/// Every malformed or over-limit input maps to one of these kinds with the byte offset where
/// decoding stopped; the decoder never traps. The formats are those of the MessagePack
/// specification ("Formats", github.com/msgpack/msgpack/blob/master/spec.md); the limits are
/// the decoder's own (``MessagePackDecoder/maximumDepth``, ``MessagePackDecoder/maximumSize``).
package struct MessagePackDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of the problem.
    package enum Kind: Sendable, Hashable {
        /// The input ended inside a value: a format byte, its length or value bytes, or the
        /// elements a container announced (truncated or empty input).
        case unexpectedEnd
        /// `0xc1`, the one byte the spec marks "never used".
        case reservedFormat
        /// A str, bin, ext, array or map header announces more bytes or elements than the rest
        /// of the input can hold (an element takes at least one byte, a map member two).
        /// Checked before anything is allocated.
        case lengthExceedsInput(declared: UInt64)
        /// The input is larger than the decoder's ``MessagePackDecoder/maximumSize``.
        case sizeLimitExceeded(limit: Int)
        /// Arrays and maps nested deeper than ``MessagePackDecoder/maximumDepth``.
        case depthLimitExceeded(limit: Int)
        /// A str whose bytes are not well-formed UTF-8 (RFC 3629), which the spec requires.
        case invalidUTF8
        /// A map key that is not a str (the format byte of the key is given): ``JSONValue``
        /// objects, like JavaScript objects in JSON, have string keys only.
        case nonStringKey(format: UInt8)
        /// notepack.io's `undefined` where a value is required: the top level.
        case undefinedValue
        /// Bytes after the top-level value (notepack.io: "N trailing bytes").
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
        "MessagePackDecodingError(\(self.kind) at byte \(self.offset))"
    }
}
