public import Foundation

/// A socket.io packet, as parsed from or written to the engine.
///
/// [Socket.IO protocol v5](https://socket.io/docs/v4/socket-io-protocol/): a type digit,
/// for binary packets the attachment count and `-`, the namespace followed by `,` when it is
/// not `/`, the ack id, then a JSON array (or object for CONNECT / CONNECT_ERROR).
public struct SocketPacket: CustomStringConvertible {
    // MARK: PacketType enum

    /// The type of packets.
    public enum PacketType: Int {
        // MARK: Cases

        /// Connect: 0
        case connect

        /// Disconnect: 1
        case disconnect

        /// Event: 2
        case event

        /// Ack: 3
        case ack

        /// Error: 4
        case error

        /// Binary Event: 5
        case binaryEvent

        /// Binary Ack: 6
        case binaryAck

        // MARK: Properties

        /// Whether or not this type is binary
        public var isBinary: Bool {
            return self == .binaryAck || self == .binaryEvent
        }

        /// An EVENT or BINARY_EVENT.
        var isEvent: Bool {
            self == .event || self == .binaryEvent
        }
    }

    // MARK: Properties

    private static let logType = "SocketPacket"

    /// The namespace for this packet.
    public let nsp: String

    /// If > 0 then this packet is using acking.
    public let id: Int

    /// The type of this packet.
    public let type: PacketType

    /// An array of binary data for this packet.
    public internal(set) var binary: [Data]

    /// The data for this event.
    ///
    /// Note: This includes all data inside of the socket.io packet payload array, which includes the event name for
    /// event type packets.
    public internal(set) var data: [Any] {
        didSet { cachedText = nil }
    }

    /// Returns the payload for this packet, minus the event name if this is an event or binaryEvent type packet.
    public var args: [Any] {
        if (type == .event || type == .binaryEvent) && data.count != 0 {
            return Array(data.dropFirst())
        } else {
            return data
        }
    }

    /// A string representation of this packet (type, id, namespace and sizes; never the payload).
    public var description: String {
        return "SocketPacket {type: \(String(type.rawValue)); data items: \(data.count); " + "id: \(id); placeholders: \(placeholders); nsp: \(nsp)}"
    }

    /// The event name for this packet.
    public var event: String {
        guard let first = data.first else { return "" }
        return first as? String ?? String(describing: first)
    }

    /// A string representation of this packet.
    public var packetString: String {
        return createPacketString()
    }

    let placeholders: Int

    /// The encoded text, kept by `packetFromEmit` so an emit is encoded once.
    var cachedText: String?

    init(
        type: PacketType, data: [Any] = [Any](), id: Int = -1, nsp: String, placeholders: Int = 0,
        binary: [Data] = [Data]()
    ) {
        self.data = data
        self.id = id
        self.nsp = nsp
        self.type = type
        self.placeholders = placeholders
        self.binary = binary
    }

    private func createPacketString() -> String {
        return cachedText ?? encoded().text
    }
}
