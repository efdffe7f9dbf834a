public import Foundation

/// Defines that a type will be able to parse socket.io-protocol messages.
public protocol SocketParsable: AnyObject {
    // MARK: Methods

    /// Called when the engine has received some binary data that should be attached to a packet.
    ///
    /// Packets binary data should be sent directly after the packet that expects it, so there's confusion over
    /// where the data should go. Data should be received in the order it is sent, so that the correct data is put
    /// into the correct placeholder.
    ///
    /// - parameter data: The data that should be attached to a packet.
    func parseBinaryData(_ data: Data) -> SocketPacket?

    /// Called when the engine has received a string that should be parsed into a socket.io packet.
    ///
    /// - parameter message: The string that needs parsing.
    /// - returns: A completed socket packet or nil if the packet is invalid.
    func parseSocketMessage(_ message: String) -> SocketPacket?
}

/// Errors that can be thrown during parsing.
public enum SocketParsableError: Error {
    // MARK: Cases

    /// Thrown when a packet received has an invalid data array, or is missing the data array.
    case invalidDataArray

    /// Thrown when an malformed packet is received.
    case invalidPacket

    /// Thrown when the parser receives an unknown packet type.
    case invalidPacketType
}

/// Says that a type will be able to buffer binary data before all data for an event has come in.
public protocol SocketDataBufferable: AnyObject {
    // MARK: Properties

    /// A list of packets that are waiting for binary data.
    ///
    /// The way that socket.io works all data should be sent directly after each packet.
    /// So this should ideally be an array of one packet waiting for data.
    ///
    /// **This should not be modified directly.**
    var waitingPackets: [SocketPacket] { get set }
}

extension SocketPacket {
    /// Most binary attachments one packet may announce; more is treated as a hostile packet.
    static let maximumAttachments = 1_000

    /// Parses one socket.io packet from the text of an engine.io message.
    ///
    /// - Throws: ``SocketParsableError`` for an unknown type, a malformed header or JSON, or
    ///   an event without a name.
    static func decode(_ message: String) throws(SocketParsableError) -> SocketPacket {
        var rest = Substring(message)
        guard let typeCharacter = rest.first, let typeValue = typeCharacter.wholeNumberValue,
              let type = PacketType(rawValue: typeValue) else {
            throw .invalidPacketType
        }
        rest = rest.dropFirst()

        var placeholders = 0
        if type.isBinary {
            guard let dash = rest.firstIndex(of: "-"), let count = Int(rest[rest.startIndex..<dash]),
                  count >= 0, count <= self.maximumAttachments else {
                throw .invalidPacket
            }
            placeholders = count
            rest = rest[rest.index(after: dash)...]
        }

        var nsp = "/"
        if rest.first == "/" {
            if let comma = rest.firstIndex(of: ",") {
                nsp = String(rest[rest.startIndex..<comma])
                rest = rest[rest.index(after: comma)...]
            } else {
                nsp = String(rest)
                rest = ""
            }
        }

        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
        var id = -1
        if !digits.isEmpty {
            guard digits.count <= 15, let parsed = Int(digits) else { throw .invalidPacket }
            id = parsed
            rest = rest[digits.endIndex...]
        }

        var data: [Any] = []
        if !rest.isEmpty {
            let value: Any
            do {
                value = try SocketJSON.parse(rest)
            } catch {
                throw .invalidDataArray
            }
            if let array = value as? [Any] {
                data = array
            } else {
                data = [value]
            }
        }

        if type == .event || type == .binaryEvent {
            guard data.first is String else { throw .invalidDataArray }
        }

        return SocketPacket(type: type, data: data, id: id, nsp: nsp, placeholders: placeholders)
    }
}
