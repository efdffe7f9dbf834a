extension String {
    /// The string `bytes` spell when they are well-formed UTF-8, else `nil` (no repair).
    ///
    /// `String(validating:as:)` does this from iOS 18 / macOS 15 (and always on Linux); on the
    /// older systems the package supports, the bytes are checked with ``UTF8Validator`` first,
    /// then decoded: two passes, there only.
    package init?<Bytes: Collection>(validatingUTF8Bytes bytes: Bytes) where Bytes.Element == UInt8 {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            guard let string = String(validating: bytes, as: UTF8.self) else { return nil }
            self = string
            return
        }
        guard Self.isWellFormedUTF8(bytes) else { return nil }
        self = String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are well-formed UTF-8 (the check before iOS 18 / macOS 15).
    package static func isWellFormedUTF8<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        if let valid = bytes.withContiguousStorageIfAvailable({ UTF8Validator.isValid(UnsafeRawBufferPointer($0)) }) {
            return valid
        }
        return UTF8Validator.isValid(Array(bytes))
    }
}
