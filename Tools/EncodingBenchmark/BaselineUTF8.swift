// The two UTF-8 validators RealtimeEncoding's `UTF8Validator` replaced (issue 34, step 3d),
// copied from the parent of that commit only as this benchmark's comparison baseline: no
// library code calls them.

/// EngineIOProtocol's `UTF8Validation.firstInvalidOffset(in:)` before issue 34: the whole-buffer
/// check of the JSON and MessagePack parsers and the Engine.IO packets.
enum BaselineUTF8Validation {
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
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
}

/// WebSocketCodec's incremental `UTF8Validator` before issue 34 (a text message in pieces).
struct BaselineWebSocketUTF8Validator {
    private var remaining: UInt8 = 0
    private var lowerBound: UInt8 = 0x80
    private var upperBound: UInt8 = 0xBF

    var isAtCharacterBoundary: Bool { self.remaining == 0 }

    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if self.remaining == 0 {
                while index + 8 <= count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    index += 8
                }
                guard index < count else { return true }
                let byte = bytes[index]
                index += 1
                switch byte {
                case 0x00...0x7F:
                    continue
                case 0xC2...0xDF:
                    (self.remaining, self.lowerBound, self.upperBound) = (1, 0x80, 0xBF)
                case 0xE0:
                    (self.remaining, self.lowerBound, self.upperBound) = (2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF:
                    (self.remaining, self.lowerBound, self.upperBound) = (2, 0x80, 0xBF)
                case 0xED:
                    (self.remaining, self.lowerBound, self.upperBound) = (2, 0x80, 0x9F)
                case 0xF0:
                    (self.remaining, self.lowerBound, self.upperBound) = (3, 0x90, 0xBF)
                case 0xF1...0xF3:
                    (self.remaining, self.lowerBound, self.upperBound) = (3, 0x80, 0xBF)
                case 0xF4:
                    (self.remaining, self.lowerBound, self.upperBound) = (3, 0x80, 0x8F)
                default:
                    return false
                }
            } else {
                let byte = bytes[index]
                index += 1
                guard byte >= self.lowerBound && byte <= self.upperBound else { return false }
                self.remaining -= 1
                self.lowerBound = 0x80
                self.upperBound = 0xBF
            }
        }
        return true
    }

    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = BaselineWebSocketUTF8Validator()
        return validator.validate(bytes) && validator.isAtCharacterBoundary
    }
}
