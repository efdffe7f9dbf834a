/// Socket.IO v5 packet types, sent as one ASCII digit at the start of a packet.
///
/// socket.io-protocol v5, "Exchange protocol": CONNECT 0, DISCONNECT 1, EVENT 2, ACK 3,
/// CONNECT_ERROR 4, BINARY_EVENT 5, BINARY_ACK 6.
package enum SocketPacketType: UInt8, Sendable, Hashable, CaseIterable {
    case connect = 0
    case disconnect = 1
    case event = 2
    case ack = 3
    case connectError = 4
    case binaryEvent = 5
    case binaryAck = 6

    /// `true` for ``binaryEvent`` and ``binaryAck``, whose header announces attachments.
    package var isBinary: Bool {
        self == .binaryEvent || self == .binaryAck
    }
}
