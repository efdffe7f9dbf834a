/// Why a ``JSONValue`` could not be written as MessagePack.
///
/// The MessagePack specification ("Limitation") bounds a str, bin, array or map to
/// 2^32 - 1 bytes or elements; a longer one has no encoding.
package struct MessagePackEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The length or count that does not fit 32 bits.
    package var length: Int

    /// An error for a value of `length` bytes or elements.
    package init(length: Int) {
        self.length = length
    }

    package var description: String {
        "MessagePackEncodingError(a str, bin, array or map of \(self.length) bytes or elements exceeds 2^32 - 1)"
    }
}
