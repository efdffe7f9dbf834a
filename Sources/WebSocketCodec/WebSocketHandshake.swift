import RealtimeEncoding

/// The key arithmetic of the opening handshake (RFC 6455 §4.1, §4.2.2).
package enum WebSocketHandshake {
    /// The GUID appended to the key before hashing (RFC 6455 §1.3).
    package static let magicGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A `Sec-WebSocket-Key` value: base64 of 16 random bytes (pass exactly 16).
    package static func key(fromRandomBytes bytes: [UInt8]) -> String {
        Base64.encodedString(bytes)
    }

    /// The `Sec-WebSocket-Accept` value a server must answer `key` with:
    /// base64(SHA-1(key + GUID)).
    package static func acceptValue(forKey key: String) -> String {
        Base64.encodedString(SHA1.hash(Array((key + self.magicGUID).utf8)))
    }
}
