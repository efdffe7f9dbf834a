/// Serializes WebSocket frames (RFC 6455 §5.2), masking client frames (§5.3).
///
/// ```swift
/// var bytes: [UInt8] = []
/// WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hello".utf8),
///                              maskingKey: key, into: &bytes)
/// ```
package enum WebSocketFrameEncoder {
    /// Size of the header for a payload of `payloadLength` bytes.
    package static func headerSize(payloadLength: Int, masked: Bool) -> Int {
        let lengthBytes = payloadLength <= 125 ? 0 : (payloadLength <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (masked ? 4 : 0)
    }

    /// Appends one frame to `output`: header, then the payload masked with `maskingKey`
    /// (client frames) or as is (`nil`, server frames). One copy of the payload; the XOR
    /// runs in place over the appended bytes, a word at a time.
    package static func encode(
        opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer,
        fin: Bool = true, rsv1: Bool = false,
        maskingKey: WebSocketMaskingKey?, into output: inout [UInt8]
    ) {
        let count = payload.count
        output.reserveCapacity(output.count + self.headerSize(payloadLength: count, masked: maskingKey != nil) + count)
        output.append((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if count <= 125 {
            output.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(truncatingIfNeeded: count >> 8))
            output.append(UInt8(truncatingIfNeeded: count))
        } else {
            output.append(maskBit | 127)
            let length = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
        }
        if let key = maskingKey {
            output.append(key.bytes.0)
            output.append(key.bytes.1)
            output.append(key.bytes.2)
            output.append(key.bytes.3)
        }
        let payloadStart = output.count
        output.append(contentsOf: payload)
        if let key = maskingKey, count > 0 {
            output.withUnsafeMutableBytes { all in
                key.apply(to: UnsafeMutableRawBufferPointer(rebasing: all[payloadStart...]))
            }
        }
    }

    /// Appends one frame whose payload is `payload`.
    package static func encode(
        opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true,
        rsv1: Bool = false, maskingKey: WebSocketMaskingKey?,
        into output: inout [UInt8]
    ) {
        payload.withUnsafeBytes {
            self.encode(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskingKey: maskingKey, into: &output)
        }
    }

    /// One frame as a new array.
    package static func encode(
        opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true,
        rsv1: Bool = false, maskingKey: WebSocketMaskingKey?
    ) -> [UInt8] {
        var output: [UInt8] = []
        self.encode(opcode: opcode, payload: payload, fin: fin, rsv1: rsv1, maskingKey: maskingKey, into: &output)
        return output
    }

    /// The payload of a close frame: the code in network order, then the UTF-8 reason
    /// (RFC 6455 §5.5.1). The reason is cut at a character boundary to fit in 123 bytes.
    package static func closePayload(code: UInt16, reason: String) -> [UInt8] {
        var payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var reasonBytes = 0
        for scalar in reason.unicodeScalars {
            let length = UTF8.width(scalar)
            if reasonBytes + length > 123 { break }
            reasonBytes += length
        }
        payload.append(contentsOf: reason.utf8.prefix(reasonBytes))
        return payload
    }
}
