import RealtimeEncoding

/// Incremental WebSocket frame decoder (RFC 6455 §5.2).
///
/// Feed bytes with ``append(_:)`` as they arrive, then call ``nextFrame()`` until it returns
/// `nil` ("need more"). Headers are validated as soon as they are complete: reserved bits,
/// reserved opcodes, control-frame rules, the 64-bit length's top bit, the masking rule of
/// the role, and the frame size limit — all *before* any payload storage is allocated.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: 1 << 20)
/// decoder.append(bytesFromSocket)
/// while let frame = try decoder.nextFrame() { handle(frame) }
/// ```
///
/// Payload bytes are copied once, from the input into the frame's own array (or, with
/// ``nextWholeText(maxLength:)``, into the text of a whole text message).
package struct WebSocketFrameDecoder: Sendable {
    /// Which side of the connection decodes. Servers' frames are never masked; clients'
    /// frames always are (RFC 6455 §5.1).
    package enum Role: Sendable {
        /// Decodes frames sent by a server: a masked frame is a protocol error.
        case client
        /// Decodes frames sent by a client: an unmasked frame is a protocol error.
        case server
    }

    private struct Header: Sendable {
        var fin: Bool
        var rsv1: Bool
        var rsv2: Bool
        var rsv3: Bool
        var opcode: WebSocketOpcode
        var maskingKey: WebSocketMaskingKey?
        var payloadLength: Int
    }

    package let role: Role
    /// Largest payload of a single frame; a longer header fails with close code 1009.
    package var maxFramePayloadSize: Int
    /// RSV bits an extension negotiated (RSV1 for permessage-deflate); others are errors.
    package var allowsRSV1: Bool

    private var buffer = InputByteBuffer()
    private var pendingHeader: Header?
    private var pendingPayload: [UInt8] = []
    private var failed: WebSocketProtocolError?

    package init(role: Role = .client, maxFramePayloadSize: Int = 16 << 20, allowsRSV1: Bool = false) {
        self.role = role
        self.maxFramePayloadSize = maxFramePayloadSize
        self.allowsRSV1 = allowsRSV1
    }

    /// Bytes received but not yet returned inside a frame.
    package var bufferedByteCount: Int { self.buffer.count + self.pendingPayload.count }

    /// The frame whose payload is still arriving (after ``nextFrame()`` returned `nil`): its
    /// opcode, RSV1 bit, the payload length its header declares and the payload bytes received
    /// so far; only for unmasked frames (client-role decoding). Lets the owner validate text
    /// before the frame completes (``WebSocketPartialTextCheck``).
    package var partialFrame: (opcode: WebSocketOpcode, rsv1: Bool, payloadLength: Int, payloadSoFar: [UInt8])? {
        guard let header = self.pendingHeader, header.maskingKey == nil else { return nil }
        return (header.opcode, header.rsv1, header.payloadLength, self.pendingPayload)
    }

    /// Adds bytes from the wire. Takes `bytes` without copying when nothing is buffered.
    package mutating func append(_ bytes: [UInt8]) {
        self.buffer.append(bytes)
    }

    /// The next frame as text, when it is a whole message that needs nothing more: a final,
    /// uncompressed, unmasked text frame (what a server sends) of at most `maxLength` bytes,
    /// its payload all buffered and valid UTF-8. Then the text is made straight from the
    /// buffered bytes (one copy, where ``nextFrame()`` and a message assembler make two) and
    /// the frame is consumed.
    ///
    /// Returns `nil` and consumes nothing otherwise (another kind of frame, a payload still
    /// arriving, invalid text, a failed decoder): ``nextFrame()`` then decodes the frame, and
    /// reports whatever is wrong with it, as always. Call it only where an unfragmented text
    /// frame would complete a message (no fragmented message in progress), and only when
    /// decoding a server's frames (``Role/client``).
    package mutating func nextWholeText(maxLength: Int) -> String? {
        guard self.failed == nil, self.pendingHeader == nil, self.role == .client else { return nil }
        let available = self.buffer.count
        // FIN and the text opcode, no RSV bit; unmasked.
        guard available >= 2, self.buffer[0] == 0x81, self.buffer[1] & 0x80 == 0 else { return nil }
        let length7 = Int(self.buffer[1])
        let lengthBytes = Self.extendedLengthBytes(length7)
        let headerSize = 2 + lengthBytes
        guard available >= headerSize else { return nil }
        let value = self.payloadLength(length7, extendedAt: 2, bytes: lengthBytes)
        guard value & (1 << 63) == 0 else { return nil }
        let length = Int(value)
        guard length <= maxLength, length <= self.maxFramePayloadSize, available - headerSize >= length else { return nil }
        let text = self.buffer.withUnsafeReadableBytes { all -> String? in
            let payload = UnsafeRawBufferPointer(rebasing: all[headerSize..<(headerSize + length)])
            var validator = UTF8Validator()
            guard validator.validate(payload), validator.isAtCharacterBoundary else { return nil }
            // Typed, so that the string is made from contiguous UTF-8 in one step.
            return String(decoding: payload.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }
        guard let text else { return nil }
        self.buffer.consume(headerSize + length)
        return text
    }

    /// Adds bytes from the wire (copying them).
    package mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        self.append(Array(bytes))
    }

    /// The next complete frame, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``WebSocketProtocolError`` with 1002 for malformed frames and 1009 for frames
    ///   over ``maxFramePayloadSize``. The decoder then stays failed: every later call rethrows.
    package mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failed = self.failed { throw failed }
        do {
            return try self.decodeStep()
        } catch {
            self.failed = error
            self.buffer.removeAll()
            self.pendingPayload = []
            throw error
        }
    }

    private mutating func decodeStep() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let header: Header
        if let pending = self.pendingHeader {
            header = pending
        } else {
            guard let parsed = try self.parseHeader() else { return nil }
            header = parsed
        }
        let available = self.buffer.count
        let missing = header.payloadLength - self.pendingPayload.count
        if self.pendingHeader == nil && available >= missing {
            // Whole payload already here: one copy, straight out of the input (none when the
            // input holds nothing else).
            var payload = self.buffer.take(missing)
            if let key = header.maskingKey {
                payload.withUnsafeMutableBytes { key.apply(to: $0) }
            }
            return Self.frame(header, payload)
        }
        if self.pendingHeader == nil {
            self.pendingHeader = header
            self.pendingPayload = []
            self.pendingPayload.reserveCapacity(header.payloadLength)
        }
        let take = min(available, missing)
        if take > 0 {
            self.pendingPayload.append(contentsOf: self.buffer.slice(from: 0, length: take))
            self.buffer.consume(take)
        }
        guard self.pendingPayload.count == header.payloadLength else { return nil }
        var payload = self.pendingPayload
        self.pendingPayload = []
        self.pendingHeader = nil
        if let key = header.maskingKey {
            payload.withUnsafeMutableBytes { key.apply(to: $0) }
        }
        return Self.frame(header, payload)
    }

    private static func frame(_ header: Header, _ payload: [UInt8]) -> WebSocketFrame {
        WebSocketFrame(
            fin: header.fin, rsv1: header.rsv1, rsv2: header.rsv2, rsv3: header.rsv3,
            opcode: header.opcode, payload: payload)
    }

    /// How many bytes of extended payload length follow a 7-bit length (RFC 6455 §5.2).
    private static func extendedLengthBytes(_ length7: Int) -> Int {
        length7 == 127 ? 8 : (length7 == 126 ? 2 : 0)
    }

    /// The payload length a header declares: its 7-bit length, or the `bytes` (2 or 8) of
    /// extended length at `offset` from the read position, big-endian; the caller has checked
    /// they are buffered.
    private func payloadLength(_ length7: Int, extendedAt offset: Int, bytes: Int) -> UInt64 {
        guard bytes > 0 else { return UInt64(length7) }
        var value: UInt64 = 0
        for index in 0..<bytes { value = value << 8 | UInt64(self.buffer[offset + index]) }
        return value
    }

    /// Parses and validates a header at the read position, consuming it; `nil` if incomplete.
    private mutating func parseHeader() throws(WebSocketProtocolError) -> Header? {
        let available = self.buffer.count
        guard available >= 2 else { return nil }
        let first = self.buffer[0]
        let second = self.buffer[1]

        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("reserved opcode 0x\(String(first & 0x0F, radix: 16))")
        }
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        let rsv2 = first & 0x20 != 0
        let rsv3 = first & 0x10 != 0
        if rsv2 || rsv3 || (rsv1 && !self.allowsRSV1) {
            throw .protocolError("reserved bit set without a negotiated extension")
        }
        let masked = second & 0x80 != 0
        switch self.role {
        case .client where masked: throw .protocolError("server sent a masked frame")
        case .server where !masked: throw .protocolError("client sent an unmasked frame")
        default: break
        }
        let length7 = Int(second & 0x7F)
        if opcode.isControl {
            guard fin else { throw .protocolError("fragmented control frame") }
            guard length7 <= 125 else { throw .protocolError("control frame payload over 125 bytes") }
        }
        let lengthBytes = Self.extendedLengthBytes(length7)
        let headerSize = 2 + lengthBytes + (masked ? 4 : 0)
        guard available >= headerSize else { return nil }

        var index = 2
        let value = self.payloadLength(length7, extendedAt: index, bytes: lengthBytes)
        guard value & (1 << 63) == 0 else {
            throw .protocolError("64-bit payload length with the most significant bit set")
        }
        let payloadLength = Int(value)
        guard payloadLength <= self.maxFramePayloadSize else {
            throw .messageTooBig("frame of \(payloadLength) bytes over the limit of \(self.maxFramePayloadSize)")
        }
        index += lengthBytes
        var maskingKey: WebSocketMaskingKey?
        if masked {
            maskingKey = WebSocketMaskingKey(
                self.buffer[index], self.buffer[index + 1],
                self.buffer[index + 2], self.buffer[index + 3])
        }
        self.buffer.consume(headerSize)
        return Header(
            fin: fin, rsv1: rsv1, rsv2: rsv2, rsv3: rsv3, opcode: opcode,
            maskingKey: maskingKey, payloadLength: payloadLength)
    }
}
