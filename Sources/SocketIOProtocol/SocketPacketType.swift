/// Socket.IO v5 packet types, sent as one ASCII digit.
package enum SocketPacketType: UInt8, Sendable, Hashable, CaseIterable {
    case connect = 0
    case disconnect = 1
    case event = 2
    case ack = 3
    case connectError = 4
    case binaryEvent = 5
    case binaryAck = 6
}
