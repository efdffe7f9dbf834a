#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
/// A fixed receive buffer, allocated once per connection (socket bytes, or TLS plaintext).
// @unchecked Sendable: the memory is only touched by the connection's single active reader:
// `TCPStream.read` (serialized by its `isReading` flag) or, for TLS, the handshake and then
// `TLSStream.read` (serialized by `TLSStream.State.isReading`); never both on one connection.
// A TLS stream's plaintext buffer is only written by SSL_read under the stream's lock.
final class ReadBuffer: @unchecked Sendable {
    /// 256 KiB: a streamed body (an SSE flood, a 16 MiB event) read 64 KiB at a time woke its
    /// reader about four times as often, and on two vCPUs each wake-up cost more than the
    /// parsing it enabled (64-byte events end to end: 2.1-2.3 million a second instead of
    /// 3.0-3.1, medians of 5, `scripts/bench-sse.sh`). The memory is only reserved: pages are
    /// resident once a read fills them, so a connection that only ever gets small messages
    /// keeps one page, as before. WebSocket reads ask for 64 KiB at most.
    static let size = 256 * 1024
    let bytes: UnsafeMutableRawBufferPointer

    init(byteCount: Int = ReadBuffer.size) {
        self.bytes = .allocate(byteCount: byteCount, alignment: 16)
    }

    deinit {
        self.bytes.deallocate()
    }
}
#endif
