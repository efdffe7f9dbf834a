package import RealtimeEncoding

/// Turns frames into messages (RFC 6455 §5.4, §5.5, §5.6): reassembles fragments, lets
/// control frames interleave, enforces the continuation rules, validates text as UTF-8 as
/// it arrives, validates close payloads, bounds message size, and inflates
/// permessage-deflate messages (RFC 7692 §6).
///
/// ```swift
/// var assembler = WebSocketMessageAssembler(maxMessageSize: 1 << 20)
/// while let frame = try decoder.nextFrame() {
///     switch try assembler.receive(frame) { ... }
/// }
/// ```
///
/// A thrown ``WebSocketProtocolError`` carries the close code to send (1002, 1007, 1009);
/// the assembler is then failed and keeps rethrowing.
package struct WebSocketMessageAssembler: Sendable {
    /// What one frame completes.
    package enum Event: Sendable, Hashable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// A close frame: `code` is `nil` when the frame had no payload (1005 semantics).
        case close(code: UInt16?, reason: String)
    }

    private enum State: Sendable {
        case idle
        case assembling(opcode: WebSocketOpcode, compressed: Bool)
        case failed(WebSocketProtocolError)
    }

    package let maxMessageSize: Int
    private let decompressor: PerMessageDeflateDecompressor?
    private var state: State = .idle
    private var buffer: [UInt8] = []
    private var utf8 = UTF8Validator()

    /// - Parameters:
    ///   - maxMessageSize: largest message after reassembly (and decompression).
    ///   - decompressor: set when permessage-deflate was negotiated; RSV1 is then allowed on
    ///     the first frame of a data message.
    /// Whether no fragmented message is in progress: an unfragmented data frame now is a
    /// whole message (``WebSocketFrameDecoder/nextWholeText(maxLength:)``).
    package var isIdle: Bool {
        if case .idle = self.state { return true }
        return false
    }

    package init(maxMessageSize: Int, decompressor: PerMessageDeflateDecompressor? = nil) {
        self.maxMessageSize = maxMessageSize
        self.decompressor = decompressor
    }

    /// The UTF-8 state from which the payload of a frame still arriving would be validated,
    /// or `nil` when that payload is not plain text (binary, compressed, control) or when the
    /// complete frame would fail a check that comes before UTF-8 validation in ``receive(_:)``:
    /// RSV1 on a continuation or on uncompressed text, a data frame out of sequence, a
    /// message over ``maxMessageSize``. Those errors are known from the frame header, before
    /// any payload byte, so they win over invalid UTF-8 in the payload: the close code then
    /// does not depend on how the bytes were chunked. Lets the owner reject invalid text
    /// before the frame is complete (fail fast; ``WebSocketPartialTextCheck``).
    package func textValidator(
        forFrameWith opcode: WebSocketOpcode, rsv1: Bool,
        payloadLength: Int
    ) -> UTF8Validator? {
        guard !rsv1 else { return nil }
        switch (self.state, opcode) {
        case (.idle, .text):
            return payloadLength <= self.maxMessageSize ? UTF8Validator() : nil
        case (.assembling(.text, false), .continuation):
            return self.buffer.count + payloadLength <= self.maxMessageSize ? self.utf8 : nil
        default:
            return nil
        }
    }

    /// Processes one frame; returns what it completes, or `nil` for a non-final fragment.
    package mutating func receive(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> Event? {
        if case .failed(let error) = self.state { throw error }
        do {
            return try self.process(frame)
        } catch {
            self.state = .failed(error)
            self.buffer = []
            self.decompressor?.reset()
            throw error
        }
    }

    private mutating func process(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> Event? {
        if frame.rsv2 || frame.rsv3 { throw .protocolError("reserved bit set without a negotiated extension") }
        switch frame.opcode {
        case .ping, .pong, .close:
            if frame.rsv1 { throw .protocolError("RSV1 on a control frame") }
            guard frame.fin else { throw .protocolError("fragmented control frame") }
            guard frame.payload.count <= 125 else { throw .protocolError("control frame payload over 125 bytes") }
            switch frame.opcode {
            case .ping: return .ping(frame.payload)
            case .pong: return .pong(frame.payload)
            default: return try Self.parseClose(frame.payload)
            }
        case .text, .binary:
            guard case .idle = self.state else {
                throw .protocolError("new data frame while a fragmented message is in progress")
            }
            if frame.rsv1 && self.decompressor == nil {
                throw .protocolError("RSV1 set without permessage-deflate")
            }
            if frame.fin && !frame.rsv1 {
                return try self.singleFrameMessage(frame)
            }
            self.state = .assembling(opcode: frame.opcode, compressed: frame.rsv1)
            self.buffer = []
            self.utf8.reset()
            return try self.appendFragment(frame, opcode: frame.opcode, compressed: frame.rsv1)
        case .continuation:
            guard case .assembling(let opcode, let compressed) = self.state else {
                throw .protocolError("continuation frame without a message in progress")
            }
            if frame.rsv1 { throw .protocolError("RSV1 on a continuation frame") }
            return try self.appendFragment(frame, opcode: opcode, compressed: compressed)
        }
    }

    /// The common case: one unfragmented, uncompressed frame; the payload becomes the message
    /// without another copy for binary.
    private mutating func singleFrameMessage(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> Event {
        guard frame.payload.count <= self.maxMessageSize else {
            throw .messageTooBig("message of \(frame.payload.count) bytes over the limit of \(self.maxMessageSize)")
        }
        if frame.opcode == .binary { return .binary(frame.payload) }
        guard UTF8Validator.isValid(frame.payload) else { throw .invalidUTF8("text message is not valid UTF-8") }
        return .text(String(decoding: frame.payload, as: UTF8.self))
    }

    private mutating func appendFragment(
        _ frame: WebSocketFrame, opcode: WebSocketOpcode,
        compressed: Bool
    ) throws(WebSocketProtocolError) -> Event? {
        let start = self.buffer.count
        if compressed, let decompressor = self.decompressor {
            try decompressor.decompress(frame.payload, into: &self.buffer, limit: self.maxMessageSize)
            if frame.fin {
                try decompressor.finishMessage(into: &self.buffer, limit: self.maxMessageSize)
            }
        } else {
            guard self.buffer.count + frame.payload.count <= self.maxMessageSize else {
                throw .messageTooBig("message over the limit of \(self.maxMessageSize) bytes")
            }
            if self.buffer.isEmpty && frame.fin {
                self.buffer = frame.payload
            } else {
                self.buffer.append(contentsOf: frame.payload)
            }
        }
        if opcode == .text {
            let valid = self.buffer.withUnsafeBytes { all in
                self.utf8.validate(UnsafeRawBufferPointer(rebasing: all[start...]))
            }
            guard valid else { throw .invalidUTF8("text message is not valid UTF-8") }
        }
        guard frame.fin else { return nil }
        self.state = .idle
        let message = self.buffer
        self.buffer = []
        if opcode == .binary { return .binary(message) }
        guard self.utf8.isAtCharacterBoundary else { throw .invalidUTF8("text message ends inside a character") }
        return .text(String(decoding: message, as: UTF8.self))
    }

    /// Validates a close payload (RFC 6455 §5.5.1, §7.4): empty, or a valid code and a
    /// UTF-8 reason.
    package static func parseClose(_ payload: [UInt8]) throws(WebSocketProtocolError) -> Event {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .protocolError("close payload of one byte") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.isValidOnWire(code) else { throw .protocolError("invalid close code \(code)") }
        let reasonBytes = Array(payload[2...])
        guard UTF8Validator.isValid(reasonBytes) else { throw .invalidUTF8("close reason is not valid UTF-8") }
        return .close(code: code, reason: String(decoding: reasonBytes, as: UTF8.self))
    }
}
