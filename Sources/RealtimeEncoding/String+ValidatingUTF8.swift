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

    /// ``init(validatingUTF8Bytes:)`` for a slice of an array, such as an HTTP field's value:
    /// checked with ``UTF8Validator``, then copied (the decoding's own check takes its ASCII
    /// fast path on what passed).
    ///
    /// Concrete, not the generic form: a generic `package` initializer is not specialized in
    /// another module, and there its body looks up type metadata and associated-type witnesses
    /// on every call (about 8,000 instructions per polling ack, whose requests and responses
    /// carry a dozen fields).
    package init?(validatingUTF8Bytes bytes: ArraySlice<UInt8>) {
        let string = bytes.withUnsafeBytes { raw -> String? in
            guard UTF8Validator.isValid(raw) else { return nil }
            return String(decoding: raw, as: UTF8.self)
        }
        guard let string else { return nil }
        self = string
    }

    /// Whether `bytes` are well-formed UTF-8 (the check before iOS 18 / macOS 15).
    package static func isWellFormedUTF8<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        if let valid = bytes.withContiguousStorageIfAvailable({ UTF8Validator.isValid(UnsafeRawBufferPointer($0)) }) {
            return valid
        }
        return UTF8Validator.isValid(Array(bytes))
    }
}
