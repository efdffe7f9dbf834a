import RealtimeEncoding

/// A packet from the server as the client machine takes it from a polling body: a text
/// `message` keeps its record's own text, `4` included (``EngineMessageText``), every other
/// packet is an ``EnginePacket``.
///
/// The layer above hands a message to an API that takes the whole packet (upstream's
/// `parseEngineMessage(_:)`), so a message decoded without its digit would be copied once to
/// strip it and once more to add it back. A record is made into that packet's text directly,
/// as a WebSocket text frame is.
///
/// ```swift
/// try EnginePollingPayload.decode(Array("42[\"hi\"]\u{1E}2".utf8), maximumLength: 1 << 20, as: EngineInboundPacket.self)
/// // [.message(EngineMessageText(packet: #"42["hi"]"#)), .packet(.ping(""))]
/// ```
package enum EngineInboundPacket: PollingRecord, Hashable {
    /// A text message, as its packet's text.
    case message(EngineMessageText)
    /// Any other packet, a binary message included.
    case packet(EnginePacket)

    package init(pollingRecord bytes: UnsafeBufferPointer<UInt8>) throws(EngineProtocolError) {
        guard bytes.first == EnginePacketType.message.asciiDigit else {
            self = .packet(try EnginePacket(pollingRecord: bytes))
            return
        }
        guard UTF8Validator.firstInvalidOffset(in: bytes) == nil else {
            throw .invalidUTF8
        }
        self = .message(EngineMessageText(packet: String(decoding: bytes, as: UTF8.self)))
    }
}
