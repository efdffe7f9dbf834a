/// A write refused because an outbound buffer of the engine has no room for it.
///
/// The engine buffers writes it cannot send yet: in ``EngineClientStateMachine``'s write
/// buffer (before the handshake, behind the polling `POST` in flight, in the upgrade window)
/// and in the WebSocket's ``EngineWebSocketSendQueue`` (behind the write in progress). Each is
/// bounded in bytes and packets; the write that would go past a bound is refused whole with
/// this error, and nothing of it is sent. Writes before it are unaffected, and later writes
/// succeed again once the buffer drained.
///
/// The defaults (16 MiB and 262,144 packets for the write buffer, 16 MiB and 262,144 frames
/// for the send queue) are far above what an application writes while one `POST` or one
/// socket write is in progress; hitting them means the peer or the network does not keep up.
///
/// ```swift
/// do {
///     actions = try machine.write([.message(text)], writeID: id)
/// } catch {
///     // error.buffer, error.maximumBytes ...: tell the caller its emit was not sent
/// }
/// ```
package struct EngineBufferOverflow: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which buffer is full.
    package enum Buffer: String, Sendable, Hashable {
        /// ``EngineClientStateMachine``'s write buffer (polling, handshake, upgrade window).
        case engineWriteBuffer = "engine write buffer"
        /// The WebSocket's ``EngineWebSocketSendQueue``.
        case webSocketSendQueue = "WebSocket send queue"
    }

    package var buffer: Buffer
    /// What the buffer held when the write came.
    package var bufferedBytes: Int
    package var bufferedPackets: Int
    /// The refused write's size.
    package var writeBytes: Int
    package var writePackets: Int
    /// The buffer's bounds.
    package var maximumBytes: Int
    package var maximumPackets: Int

    package init(
        buffer: Buffer, bufferedBytes: Int, bufferedPackets: Int, writeBytes: Int, writePackets: Int, maximumBytes: Int,
        maximumPackets: Int
    ) {
        self.buffer = buffer
        self.bufferedBytes = bufferedBytes
        self.bufferedPackets = bufferedPackets
        self.writeBytes = writeBytes
        self.writePackets = writePackets
        self.maximumBytes = maximumBytes
        self.maximumPackets = maximumPackets
    }

    package var description: String {
        "\(self.buffer.rawValue) full: a write of \(self.writeBytes) bytes in \(self.writePackets) packets does not fit beside "
            + "\(self.bufferedBytes) bytes in \(self.bufferedPackets) packets (at most \(self.maximumBytes) bytes, "
            + "\(self.maximumPackets) packets)"
    }
}
