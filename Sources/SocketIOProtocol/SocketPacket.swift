package import EngineIOProtocol

/// One Socket.IO v5 packet.
///
/// socket.io-protocol v5, "Exchange protocol": a packet has a type, a namespace (`/` is the
/// main namespace), an optional payload and an optional acknowledgement id. Binary packets
/// (`BINARY_EVENT`, `BINARY_ACK`) announce how many binary attachments follow as separate
/// Engine.IO messages; after reassembly (``BinaryPacketAssembler``) the attachments sit in
/// ``data`` as ``JSONValue/binary(_:)`` values where their placeholders were.
///
/// ```swift
/// let packet = SocketPacket(type: .event, namespace: "/admin", ackID: 13, data: ["bar"])
/// SocketPacketEncoder.encode(packet).text   // 2/admin,13["bar"]
/// ```
package struct SocketPacket: Sendable, Hashable {
    /// The packet type.
    package var type: SocketPacketType
    /// The namespace; `/` is the main namespace.
    package var namespace: String
    /// The acknowledgement id, when the sender expects (EVENT) or answers (ACK) one.
    package var ackID: Int?
    /// The payload: an object for CONNECT, an object or string for CONNECT_ERROR, an array for
    /// the others; absent for DISCONNECT.
    package var data: JSONValue?
    /// For decoded binary packets, the number of attachments announced in the header.
    /// The encoder derives it from ``data`` and ignores this field.
    package var attachmentCount: Int

    /// A packet; the namespace defaults to the main namespace `/`.
    package init(type: SocketPacketType, namespace: String = "/", ackID: Int? = nil, data: JSONValue? = nil, attachmentCount: Int = 0) {
        self.type = type
        self.namespace = namespace
        self.ackID = ackID
        self.data = data
        self.attachmentCount = attachmentCount
    }
}

extension SocketPacket {
    /// For EVENT / BINARY_EVENT: the event name (the first array element, when a string).
    package var eventName: String? {
        guard self.type == .event || self.type == .binaryEvent,
            case .array(let elements) = self.data,
            case .string(let name)? = elements.first
        else { return nil }
        return name
    }

    /// For EVENT / BINARY_EVENT: the arguments after the event name; for ACK / BINARY_ACK:
    /// the whole array.
    package var arguments: [JSONValue] {
        guard case .array(let elements) = self.data else { return [] }
        switch self.type {
        case .event, .binaryEvent:
            return Array(elements.dropFirst())
        default:
            return elements
        }
    }
}
