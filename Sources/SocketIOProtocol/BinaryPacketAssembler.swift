import EngineIOProtocol

/// Collects the binary attachments of a BINARY_EVENT / BINARY_ACK packet and puts them where
/// their placeholders are.
///
/// socket.io-protocol v5, "Packet encoding" / "with binary data": the packet text announces
/// `<n>-` attachments, its payload holds `{"_placeholder":true,"num":i}` objects, and the `n`
/// attachments follow as binary Engine.IO messages. The assembler validates every placeholder
/// up front (an index outside `0..<n` is rejected before any attachment is buffered), collects
/// exactly `n` attachments, and returns the packet with each placeholder replaced by
/// ``JSONValue/binary(_:)``. A further attachment is rejected.
///
/// The attachments' bytes are bounded (``maximumBytes``), each counted once for every
/// placeholder that refers to it: a placeholder is delivered as a copy of its attachment, so
/// 500,000 placeholders naming one 1 MiB attachment would otherwise become 500 GB.
///
/// ```swift
/// var assembler = try BinaryPacketAssembler(packet: decoded)   // 51-["baz",{"_placeholder":true,"num":0}]
/// let packet = try assembler.append([1, 2, 3, 4])              // ["baz", .binary([1, 2, 3, 4])]
/// ```
package struct BinaryPacketAssembler: Sendable {
    /// The packet as announced (placeholders still in place).
    package private(set) var packet: SocketPacket
    /// The attachments collected so far, in order.
    package private(set) var attachments: [[UInt8]] = []
    private var isFinished = false
    /// How many placeholders refer to each attachment (most packets: one each).
    private var references: [Int]
    /// The bytes of the attachments collected so far.
    package private(set) var bufferedBytes = 0
    /// The bytes the packet will be delivered with so far: each attachment's size times its
    /// placeholders (at least once: an attachment no placeholder names is still held).
    private var deliveredBytes = 0

    /// The default of ``maximumBytes``: 64 MiB, four of the largest messages the transports
    /// accept.
    package static let defaultMaximumBytes = 64 << 20

    /// The most bytes a packet's attachments may take, each counted once per placeholder
    /// that names it.
    package let maximumBytes: Int

    /// Starts collecting attachments for `packet`.
    ///
    /// - Throws: ``SocketProtocolError/invalidPlaceholder`` when a placeholder's `num` is not an
    ///   index of the announced attachments.
    package init(packet: SocketPacket, maximumBytes: Int = BinaryPacketAssembler.defaultMaximumBytes) throws(SocketProtocolError) {
        self.packet = packet
        self.maximumBytes = maximumBytes
        self.references = Array(repeating: 0, count: packet.attachmentCount)
        if let data = packet.data {
            try Self.validatePlaceholders(data, references: &self.references)
        }
        self.attachments.reserveCapacity(min(packet.attachmentCount, 16))
    }

    /// How many attachments are still expected.
    package var remainingAttachments: Int {
        self.isFinished ? 0 : self.packet.attachmentCount - self.attachments.count
    }

    /// The reassembled packet when no attachment was announced (`50-[...]`), else `nil`.
    package mutating func packetIfComplete() -> SocketPacket? {
        guard !self.isFinished, self.packet.attachmentCount == 0 else { return nil }
        return self.finish()
    }

    /// Adds the next attachment.
    ///
    /// - Returns: the reassembled packet once the last announced attachment arrived, else `nil`.
    /// - Throws: ``SocketProtocolError/unexpectedAttachment`` once the packet is complete;
    ///   ``SocketProtocolError/attachmentsTooLarge(limit:)`` when the attachment would take the
    ///   packet past ``maximumBytes`` (the packet is then unusable: drop it).
    package mutating func append(_ attachment: [UInt8]) throws(SocketProtocolError) -> SocketPacket? {
        guard !self.isFinished, self.attachments.count < self.packet.attachmentCount else {
            throw .unexpectedAttachment
        }
        let copies = max(1, self.references[self.attachments.count])
        let (delivered, overflow) = attachment.count.multipliedReportingOverflow(by: copies)
        guard !overflow, delivered <= self.maximumBytes - self.deliveredBytes else {
            throw .attachmentsTooLarge(limit: self.maximumBytes)
        }
        self.deliveredBytes += delivered
        self.bufferedBytes += attachment.count
        self.attachments.append(attachment)
        guard self.attachments.count == self.packet.attachmentCount else {
            return nil
        }
        return self.finish()
    }

    private mutating func finish() -> SocketPacket {
        self.isFinished = true
        var packet = self.packet
        if let data = packet.data {
            packet.data = Self.substitute(data, attachments: self.attachments)
        }
        self.attachments = []
        return packet
    }

    // MARK: Placeholders

    /// The attachment index of a placeholder object, `-1` for a malformed placeholder, `nil`
    /// when the object is not a placeholder (socket.io-parser: `_placeholder === true`).
    private static func placeholderIndex(_ object: JSONObject) -> Int? {
        guard object["_placeholder"] == .bool(true) else { return nil }
        guard let num = object["num"], case .int(let index) = num else { return -1 }
        return index
    }

    /// Checks every placeholder's index against the announced attachments (`references`' count)
    /// and counts the placeholders that name each.
    private static func validatePlaceholders(_ value: JSONValue, references: inout [Int]) throws(SocketProtocolError) {
        switch value {
        case .object(let object):
            if let index = Self.placeholderIndex(object) {
                guard references.indices.contains(index) else { throw .invalidPlaceholder }
                references[index] += 1
                return
            }
            for (_, element) in object {
                try Self.validatePlaceholders(element, references: &references)
            }
        case .array(let elements):
            for element in elements {
                try Self.validatePlaceholders(element, references: &references)
            }
        case .null, .bool, .int, .double, .string, .binary:
            break
        }
    }

    private static func substitute(_ value: JSONValue, attachments: [[UInt8]]) -> JSONValue {
        switch value {
        case .object(let object):
            if let index = Self.placeholderIndex(object), attachments.indices.contains(index) {
                return .binary(attachments[index])
            }
            var result = JSONObject()
            result.reserveCapacity(object.count)
            for (key, element) in object {
                result.append(key: key, value: Self.substitute(element, attachments: attachments))
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map { Self.substitute($0, attachments: attachments) })
        case .null, .bool, .int, .double, .string, .binary:
            return value
        }
    }
}
