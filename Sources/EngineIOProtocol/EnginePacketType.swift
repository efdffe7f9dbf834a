/// Engine.IO v4 packet types, sent as one ASCII digit before the packet data.
///
/// engine.io-protocol v4, "Protocol": `open` 0, `close` 1, `ping` 2, `pong` 3, `message` 4,
/// `upgrade` 5, `noop` 6.
package enum EnginePacketType: UInt8, Sendable, Hashable, CaseIterable {
    case open = 0
    case close = 1
    case ping = 2
    case pong = 3
    case message = 4
    case upgrade = 5
    case noop = 6

    /// The ASCII digit that encodes this type on the wire.
    package var asciiDigit: UInt8 { UInt8(ascii: "0") + self.rawValue }

    /// The type encoded by an ASCII digit, or `nil` for any other byte.
    package init?(asciiDigit byte: UInt8) {
        guard byte >= UInt8(ascii: "0") else { return nil }
        self.init(rawValue: byte - UInt8(ascii: "0"))
    }
}
