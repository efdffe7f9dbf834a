#if canImport(Glibc)
/// A fixed receive buffer, allocated once per connection.
// @unchecked Sendable: the memory is only touched by the connection's single active reader:
// `TCPStream.read` (serialized by its `isReading` flag) or, for TLS, the handshake and then
// `TLSStream.read` (serialized by `TLSStream.State.isReading`); never both on one connection.
final class ReadBuffer: @unchecked Sendable {
    static let size = 64 * 1024
    let bytes: UnsafeMutableRawBufferPointer

    init() {
        self.bytes = .allocate(byteCount: Self.size, alignment: 16)
    }

    deinit {
        self.bytes.deallocate()
    }
}
#endif
