#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
/// A fixed receive buffer, allocated once per connection (socket bytes, or TLS plaintext).
// @unchecked Sendable: the memory is only touched by the connection's single active reader:
// `TCPStream.read` (serialized by its `isReading` flag) or, for TLS, the handshake and then
// `TLSStream.read` (serialized by `TLSStream.State.isReading`); never both on one connection.
// A TLS stream's plaintext buffer is only written by SSL_read under the stream's lock.
final class ReadBuffer: @unchecked Sendable {
    static let size = 64 * 1024
    let bytes: UnsafeMutableRawBufferPointer

    init(byteCount: Int = ReadBuffer.size) {
        self.bytes = .allocate(byteCount: byteCount, alignment: 16)
    }

    deinit {
        self.bytes.deallocate()
    }
}
#endif
