package import EngineIOProtocol

/// Turns the Engine.IO messages of a session into complete Socket.IO packets.
///
/// socket.io-protocol v5, "Packet encoding": a text message is one packet; a BINARY_EVENT or
/// BINARY_ACK announcing `n` attachments is followed by exactly `n` binary messages. The reader
/// decodes text with ``SocketPacketDecoder``, collects attachments with ``BinaryPacketAssembler``,
/// and returns each packet once it is complete. Like socket.io-parser it rejects a text message
/// that arrives while attachments are still expected, and a binary message nobody announced.
///
/// ```swift
/// var reader = SocketPacketReader()
/// try reader.receive(text: #"51-["up",{"_placeholder":true,"num":0}]"#)  // nil: waiting
/// try reader.receive(binary: [1, 2, 3])                                  // the packet
/// ```
///
/// After an error the reader is reset (no partial packet kept); the caller should close the session.
package struct SocketPacketReader: Sendable {
    /// The decoder used for text messages (limits included).
    package var decoder: SocketPacketDecoder
    private var assembler: BinaryPacketAssembler?

    /// A reader with the given decoder.
    package init(decoder: SocketPacketDecoder = SocketPacketDecoder()) {
        self.decoder = decoder
    }

    /// `true` while a binary packet waits for attachments.
    package var isAwaitingAttachments: Bool { self.assembler != nil }

    /// Reads a text message.
    ///
    /// - Returns: the packet, or `nil` when it announced attachments still to come.
    /// - Throws: ``SocketProtocolError`` for a malformed packet, or
    ///   ``SocketProtocolError/textWhileAwaitingAttachments`` when attachments were still expected.
    package mutating func receive(text: String) throws(SocketProtocolError) -> SocketPacket? {
        guard self.assembler == nil else {
            self.assembler = nil
            throw .textWhileAwaitingAttachments
        }
        let packet = try self.decoder.decode(text)
        guard packet.type.isBinary else { return packet }
        var assembler = try BinaryPacketAssembler(packet: packet)
        if let complete = assembler.packetIfComplete() {
            return complete
        }
        self.assembler = assembler
        return nil
    }

    /// Reads a binary message (an attachment).
    ///
    /// - Returns: the packet once its last attachment arrived, else `nil`.
    /// - Throws: ``SocketProtocolError/unexpectedAttachment`` when no binary packet waits.
    package mutating func receive(binary: [UInt8]) throws(SocketProtocolError) -> SocketPacket? {
        guard var assembler = self.assembler else {
            throw .unexpectedAttachment
        }
        do {
            let packet = try assembler.append(binary)
            self.assembler = packet == nil ? assembler : nil
            return packet
        } catch {
            self.assembler = nil
            throw error
        }
    }

    /// Drops a partial packet (on reconnect, as socket.io-client-swift clears `waitingPackets`).
    package mutating func reset() {
        self.assembler = nil
    }
}
