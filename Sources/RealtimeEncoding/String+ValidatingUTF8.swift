extension String {
    /// The string `bytes` spell when they are well-formed UTF-8, else `nil` (no repair), for a
    /// slice of an array such as an HTTP field's value: checked with ``UTF8Validator``, then
    /// copied (the decoding's own check takes its ASCII fast path on what passed). The same
    /// on every system the package supports, `String(validating:as:)` (iOS 18 / macOS 15) or
    /// not.
    ///
    /// Concrete, not generic: a generic `package` initializer is not specialized in another
    /// module, and there its body looks up type metadata and associated-type witnesses on every
    /// call (about 8,000 instructions per polling ack, whose requests and responses carry a
    /// dozen fields).
    package init?(validatingUTF8Bytes bytes: ArraySlice<UInt8>) {
        let string = bytes.withUnsafeBytes { raw -> String? in
            guard UTF8Validator.isValid(raw) else { return nil }
            return String(decoding: raw, as: UTF8.self)
        }
        guard let string else { return nil }
        self = string
    }
}
