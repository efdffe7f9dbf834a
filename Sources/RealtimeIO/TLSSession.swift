#if canImport(CRealtimeOpenSSL) && !REALTIME_NO_NATIVE_STACK
import CRealtimeOpenSSL

/// One OpenSSL `SSL` object with its two memory BIOs: ciphertext from the socket is written into
/// `input`; ciphertext OpenSSL produces is read from `output` and sent by the stream.
///
/// Memory BIOs (rather than `SSL_set_fd`) keep every socket syscall in ``SocketCore`` (so
/// `MSG_NOSIGNAL`, the event loop and the close-while-in-syscall protection apply to TLS too).
// @unchecked Sendable: the pointers are only used under ``TLSStream``'s state lock (the
// connection's one lock for OpenSSL state); `SSL_free` runs in deinit, when no other
// reference exists.
final class TLSSession: @unchecked Sendable {
    let ssl: OpaquePointer
    let input: OpaquePointer
    let output: OpaquePointer

    /// Creates the session. Must run under no lock; it touches no shared state.
    init(context: TLSContext) throws(NetworkError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.pointer) else {
            throw NetworkError(.tlsHandshakeFailed, "SSL_new failed: \(TLSErrors.drain())")
        }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw NetworkError(.tlsHandshakeFailed, "BIO_new failed: \(TLSErrors.drain())")
        }
        // An empty input BIO means "retry later", not EOF.
        _ = BIO_ctrl(input, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        _ = BIO_ctrl(output, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(ssl, input, output)  // the SSL now owns both BIOs
        SSL_set_connect_state(ssl)
        self.ssl = ssl
        self.input = input
        self.output = output
    }

    deinit {
        SSL_free(self.ssl)
    }

    /// Takes every ciphertext byte OpenSSL produced so far, appending it to `buffer`.
    func drainOutput(into buffer: inout [UInt8]) {
        let pending = Int(BIO_ctrl_pending(self.output))
        guard pending > 0 else { return }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: pending))
        let read = buffer.withUnsafeMutableBytes { raw in
            BIO_read(self.output, raw.baseAddress! + start, Int32(pending))
        }
        buffer.removeLast(pending - max(0, Int(read)))
    }

    /// Hands ciphertext received from the socket to OpenSSL.
    func feedInput(_ bytes: UnsafeRawBufferPointer) -> Bool {
        BIO_write(self.input, bytes.baseAddress, Int32(bytes.count)) == Int32(bytes.count)
    }
}
#endif
