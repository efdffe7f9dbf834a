import RealtimeIO
import WebSocketCodec

/// Writes the frames of one client connection, one frame at a time (RFC 6455 §5.1: client
/// frames masked with a fresh random key each).
///
/// Every write holds an ``AsyncSerialLock`` from encoding to the end of the write, so frames
/// from concurrent senders (the user, automatic pongs, the close handshake) never interleave,
/// and permessage-deflate's compression context follows wire order.
final class WebSocketFrameWriter: Sendable {
    private let stream: any ByteStream
    private let lock = AsyncSerialLock()
    /// Used only while `lock` is held.
    private let compressor: PerMessageDeflateCompressor?

    init(stream: any ByteStream, compressor: PerMessageDeflateCompressor?) {
        self.stream = stream
        self.compressor = compressor
    }

    /// A fresh masking key from the system's cryptographic generator (RFC 6455 §5.3), drawn
    /// from a buffered block of its output so a frame costs no system call.
    private static func randomMaskingKey() -> WebSocketMaskingKey {
        let value = WebSocketMaskingKeySource.shared.next()
        return WebSocketMaskingKey(UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                                   UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Sends a data message as one frame, compressed when permessage-deflate is on.
    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        await self.lock.lock()
        defer { self.lock.unlock() }
        let frame: [UInt8]
        switch message {
        case .text(let text):
            var text = text
            frame = text.withUTF8 { self.encodeData(opcode: .text, payload: UnsafeRawBufferPointer($0)) }
        case .binary(let bytes):
            frame = bytes.withUnsafeBytes { self.encodeData(opcode: .binary, payload: $0) }
        }
        try await self.write(frame)
    }

    /// Sends a control frame (ping, pong, close); `payload` must be at most 125 bytes.
    func sendControl(_ opcode: WebSocketOpcode, payload: [UInt8]) async throws(NetworkError) {
        await self.lock.lock()
        defer { self.lock.unlock() }
        let frame = WebSocketFrameEncoder.encode(opcode: opcode, payload: payload, maskingKey: Self.randomMaskingKey())
        try await self.write(frame)
    }

    private func encodeData(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) -> [UInt8] {
        var frame: [UInt8] = []
        if let compressor = self.compressor {
            let compressed = compressor.compress(payload)
            compressed.withUnsafeBytes {
                WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, rsv1: true,
                                             maskingKey: Self.randomMaskingKey(), into: &frame)
            }
        } else {
            WebSocketFrameEncoder.encode(opcode: opcode, payload: payload,
                                         maskingKey: Self.randomMaskingKey(), into: &frame)
        }
        return frame
    }

    /// Writes, closing the stream if the task is cancelled mid-frame (a torn frame would
    /// corrupt the connection anyway).
    private func write(_ bytes: [UInt8]) async throws(NetworkError) {
        let stream = self.stream
        let result: Result<Void, NetworkError> = await withTaskCancellationHandler {
            do throws(NetworkError) {
                try await stream.write(bytes)
                return .success(())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            stream.close()
        }
        try result.get()
    }
}
