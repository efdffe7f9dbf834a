/// RFC 3629 UTF-8 well-formedness check, shared by the JSON parser and the packet decoders.
///
/// Rejects overlong forms, UTF-16 surrogates (U+D800-U+DFFF), scalars above U+10FFFF,
/// stray continuation bytes and truncated sequences (RFC 3629 section 4, table of
/// well-formed byte sequences).
package enum UTF8Validation {
    /// The offset of the first byte that starts an ill-formed sequence, or `nil` when all of
    /// `bytes` is well-formed UTF-8.
    package static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF:
                length = 2
            case 0xE0:
                length = 3
                lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF:
                length = 3
            case 0xED:
                length = 3
                upperBound = 0x9F
            case 0xF0:
                length = 4
                lowerBound = 0x90
            case 0xF1...0xF3:
                length = 4
            case 0xF4:
                length = 4
                upperBound = 0x8F
            default:
                return index
            }
            guard index + length <= count else { return index }
            let second = bytes[index + 1]
            guard second >= lowerBound, second <= upperBound else { return index }
            var continuation = 2
            while continuation < length {
                guard bytes[index + continuation] & 0xC0 == 0x80 else { return index }
                continuation += 1
            }
            index += length
        }
        return nil
    }

    /// `true` when `bytes` is well-formed UTF-8.
    package static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ Self.firstInvalidOffset(in: $0) == nil }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { Self.firstInvalidOffset(in: $0) == nil }
    }
}
