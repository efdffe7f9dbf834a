/// Standard base64 with padding (RFC 4648 §4), for the handshake keys.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(self.alphabet[Int(value >> 18 & 0x3F)])
            output.append(self.alphabet[Int(value >> 12 & 0x3F)])
            output.append(self.alphabet[Int(value >> 6 & 0x3F)])
            output.append(self.alphabet[Int(value & 0x3F)])
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let value = UInt32(bytes[index]) << 16
            output.append(self.alphabet[Int(value >> 18 & 0x3F)])
            output.append(self.alphabet[Int(value >> 12 & 0x3F)])
            output.append(UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        } else if rest == 2 {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(self.alphabet[Int(value >> 18 & 0x3F)])
            output.append(self.alphabet[Int(value >> 12 & 0x3F)])
            output.append(self.alphabet[Int(value >> 6 & 0x3F)])
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }
}
