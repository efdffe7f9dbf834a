/// A text `message` packet for the layer above, kept as the packet's own text: the `4` type
/// digit and the message after it.
///
/// A WebSocket text frame is the packet's text already, so the machine hands it on as it
/// arrived: the owner passes ``packet`` to an API that takes the whole packet (upstream's
/// `parseEngineMessage(_:)`), and the message is never copied to strip its digit or copied
/// back to add it. A message decoded from a polling body is made into a packet once.
///
/// Equal when the messages are equal; a string literal is the message (`"hi"` is the packet
/// `4hi`).
package struct EngineMessageText: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The packet: `4` and the message.
    package let packet: String

    /// Wraps the text of a `message` packet as it arrived: `packet` must start with `4`.
    package init(packet: String) {
        assert(packet.utf8.first == UInt8(ascii: "4"), "not a message packet")
        self.packet = packet
    }

    /// The packet of `message` (one copy, to add the type digit).
    package init(message: String) {
        self.packet = "4" + message
    }

    package init(stringLiteral message: String) {
        self.init(message: message)
    }

    /// The message, without the type digit (a copy).
    package var message: String {
        // The type digit is ASCII, so dropping one UTF-8 unit stays on a character boundary.
        String(Substring(self.packet.utf8.dropFirst()))
    }

    package var description: String { self.message }
}
