import EngineIOProtocol

/// Turns the Engine.IO messages of a session into complete Socket.IO packets.
///
/// socket.io-protocol v5, "Packet encoding": a text message is one packet; a BINARY_EVENT or
/// BINARY_ACK announcing `n` attachments is followed by exactly `n` binary messages. The reader
/// decodes text with ``SocketPacketDecoder``, collects attachments with ``BinaryPacketAssembler``,
/// and returns each packet once it is complete.
///
/// What happens to a message out of place is the reader's ``Interleaving``: like socket.io-parser
/// (``Interleaving/reject``, the default) it rejects a text message that arrives while
/// attachments are still expected, and a binary message nobody announced; like
/// socket.io-client-swift (``Interleaving/keepWaiting(limit:)``) it decodes such a text
/// message and keeps the packets that wait, the newest getting the next attachment.
///
/// ```swift
/// var reader = SocketPacketReader()
/// try reader.receive(text: #"51-["up",{"_placeholder":true,"num":0}]"#)  // nil: waiting
/// try reader.receive(binary: [1, 2, 3])                                  // the packet
/// ```
///
/// The waiting packets' attachments share one byte budget (``maximumAttachmentBytes``), so the
/// packets that may wait do not multiply it: an attachment past it fails with
/// ``SocketProtocolError/attachmentsTooLarge(limit:)`` and the waiting packets are dropped.
///
/// After an error the reader in ``Interleaving/reject`` is reset (no partial packet kept); the
/// caller should close the session.
package struct SocketPacketReader: Sendable {
    /// What the reader does with a text message while attachments are still expected.
    package enum Interleaving: Sendable, Hashable {
        /// socket.io-parser: throw ``SocketProtocolError/textWhileAwaitingAttachments`` and
        /// drop the partial packet.
        case reject
        /// socket.io-client-swift (`SocketManager.waitingPackets`): decode the text message as
        /// usual; a binary packet it announces waits too (the oldest is dropped beyond
        /// `limit`), and each attachment goes to the newest waiting packet.
        case keepWaiting(limit: Int)
    }

    /// The decoder used for text messages (limits included).
    package var decoder: SocketPacketDecoder
    /// What happens to a text message while attachments are expected.
    package let interleaving: Interleaving
    /// The packets waiting for attachments, oldest first; the last gets the next attachment.
    /// At most one with ``Interleaving/reject``.
    private var waiting: [BinaryPacketAssembler] = []

    /// The most bytes the attachments of all waiting packets may take together (each counted
    /// once per placeholder that names it: ``BinaryPacketAssembler``).
    package let maximumAttachmentBytes: Int

    /// A reader with the given decoder.
    package init(
        decoder: SocketPacketDecoder = SocketPacketDecoder(), interleaving: Interleaving = .reject,
        maximumAttachmentBytes: Int = BinaryPacketAssembler.defaultMaximumBytes
    ) {
        self.decoder = decoder
        self.interleaving = interleaving
        self.maximumAttachmentBytes = maximumAttachmentBytes
    }

    /// `true` while a binary packet waits for attachments.
    package var isAwaitingAttachments: Bool { !self.waiting.isEmpty }

    /// The packets waiting for attachments, oldest first, each with the attachments it has.
    package var waitingPackets: [(packet: SocketPacket, attachments: [[UInt8]])] {
        self.waiting.map { ($0.packet, $0.attachments) }
    }

    /// Reads a text message.
    ///
    /// - Returns: the packet, or `nil` when it announced attachments still to come.
    /// - Throws: ``SocketProtocolError`` for a malformed packet, or, with
    ///   ``Interleaving/reject``, ``SocketProtocolError/textWhileAwaitingAttachments`` when
    ///   attachments were still expected.
    package mutating func receive(text: String) throws(SocketProtocolError) -> SocketPacket? {
        try self.receive(text: Substring(text))
    }

    /// Reads a text message that is part of a string (an Engine.IO message after its type
    /// digit), decoding the packet in place; otherwise as the `String` form.
    package mutating func receive(text: Substring) throws(SocketProtocolError) -> SocketPacket? {
        if case .reject = self.interleaving, !self.waiting.isEmpty {
            self.waiting = []
            throw .textWhileAwaitingAttachments
        }
        let packet = try self.decoder.decode(text)
        guard packet.type.isBinary else { return packet }
        return try self.startCollecting(packet)
    }

    /// Starts collecting the attachments of a decoded binary packet.
    ///
    /// - Returns: the packet when it announced none, else `nil`.
    /// - Throws: ``SocketProtocolError/invalidPlaceholder`` (nothing is kept).
    private mutating func startCollecting(_ packet: SocketPacket) throws(SocketProtocolError) -> SocketPacket? {
        var assembler = try BinaryPacketAssembler(packet: packet, maximumBytes: self.maximumAttachmentBytes)
        if let complete = assembler.packetIfComplete() {
            return complete
        }
        if case .keepWaiting(let limit) = self.interleaving, self.waiting.count >= max(1, limit) {
            self.waiting.removeFirst(self.waiting.count - max(1, limit) + 1)
        }
        self.waiting.append(assembler)
        return nil
    }

    /// Reads a binary message (an attachment).
    ///
    /// - Returns: the packet once its last attachment arrived, else `nil`.
    /// - Throws: ``SocketProtocolError/unexpectedAttachment`` when no binary packet waits;
    ///   ``SocketProtocolError/attachmentsTooLarge(limit:)`` when the waiting packets'
    ///   attachments would take more than ``maximumAttachmentBytes``: every waiting packet is
    ///   dropped (the attachments still to come would otherwise complete an older one).
    package mutating func receive(binary: [UInt8]) throws(SocketProtocolError) -> SocketPacket? {
        guard var assembler = self.waiting.popLast() else {
            throw .unexpectedAttachment
        }
        do throws(SocketProtocolError) {
            // The other waiting packets' share of the budget (at most `limit` of them); the
            // assembler checks its own packet's share, placeholders included.
            let othersHold = self.waiting.reduce(0) { $0 + $1.bufferedBytes }
            guard binary.count <= self.maximumAttachmentBytes - othersHold - assembler.bufferedBytes else {
                throw .attachmentsTooLarge(limit: self.maximumAttachmentBytes)
            }
            let packet = try assembler.append(binary)
            if packet == nil { self.waiting.append(assembler) }
            return packet
        } catch {
            // Past the budget the attachments that follow belong to no packet left waiting:
            // in either mode none waits any more, so they are refused, not given to another.
            if case .reject = self.interleaving { self.waiting = [] }
            if case .attachmentsTooLarge = error { self.waiting = [] }
            throw error
        }
    }

    /// Replaces the waiting packets (socket.io-client-swift's settable `waitingPackets`):
    /// each packet is checked as a decoded one is, then given the attachments it already has.
    /// A packet whose placeholders or attachments do not fit is left out.
    package mutating func replaceWaitingPackets(with packets: [(packet: SocketPacket, attachments: [[UInt8]])]) {
        self.waiting = []
        for (packet, attachments) in packets where packet.type.isBinary && attachments.count < packet.attachmentCount {
            guard var assembler = try? BinaryPacketAssembler(packet: packet, maximumBytes: self.maximumAttachmentBytes) else { continue }
            guard (try? attachments.map { attachment throws(SocketProtocolError) in try assembler.append(attachment) }) != nil
            else { continue }
            self.waiting.append(assembler)
        }
    }

    /// Drops every partial packet (on reconnect, as socket.io-client-swift clears `waitingPackets`).
    package mutating func reset() {
        self.waiting = []
    }
}
