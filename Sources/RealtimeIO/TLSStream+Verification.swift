#if canImport(CRealtimeOpenSSL) && !REALTIME_NO_NATIVE_STACK
import CRealtimeOpenSSL

extension TLSStream {
    /// Maps a failed `SSL_do_handshake` to a ``NetworkError``; `nil` for "want read/write".
    ///
    /// Certificate verification failures are read from `SSL_get_verify_result`:
    /// expired (or not yet valid) → `.certificateExpired`; host or IP mismatch →
    /// `.hostnameMismatch`; an unknown issuer, a self-signed or otherwise unverifiable chain →
    /// `.certificateUntrusted`. Everything else is `.tlsHandshakeFailed` with OpenSSL's errors.
    /// - Important: call it right after the failing call, on the same thread (the error queue is
    ///   thread-local).
    static func handshakeFailure(_ ssl: OpaquePointer, code: Int32, host: String) -> NetworkError? {
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return nil }
        let verifyResult = Int32(truncatingIfNeeded: SSL_get_verify_result(ssl))
        let detail = TLSErrors.drain()
        if verifyResult != X509_V_OK {
            let reason =
                X509_verify_cert_error_string(Int(verifyResult)).map {
                    String(
                        decoding: UnsafeBufferPointer(
                            start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                            count: strlen($0)), as: UTF8.self)
                } ?? "verification error \(verifyResult)"
            switch verifyResult {
            case X509_V_ERR_CERT_HAS_EXPIRED:
                return NetworkError(.certificateExpired, "the certificate of \(host) has expired (\(reason))")
            case X509_V_ERR_CERT_NOT_YET_VALID:
                return NetworkError(.certificateExpired, "the certificate of \(host) is not yet valid (\(reason))")
            case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
                return NetworkError(.hostnameMismatch, "the certificate is not valid for \(host) (\(reason))")
            default:
                return NetworkError(
                    .certificateUntrusted,
                    "the certificate of \(host) is not trusted: \(reason) (error \(verifyResult))")
            }
        }
        return NetworkError(.tlsHandshakeFailed, "TLS handshake with \(host) failed: \(detail)")
    }
}
#endif
