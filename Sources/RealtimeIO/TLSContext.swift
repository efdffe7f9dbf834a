#if canImport(CRealtimeOpenSSL) && !REALTIME_NO_NATIVE_STACK
import CRealtimeOpenSSL
import RealtimeSync

/// An OpenSSL `SSL_CTX` configured for one ``TLSConfiguration`` (client side, TLS 1.2+), cached
/// so connections with equal settings share the trust store and ALPN list.
///
/// Configuration: `TLS_client_method`, minimum TLS 1.2, the system trust store
/// (`SSL_CTX_set_default_verify_paths`) plus ``TLSConfiguration/additionalTrustRootsPEM``,
/// `SSL_VERIFY_PEER` unless verification is `.none`, and the ALPN protocols offered
/// (RFC 7301 wire format).
// @unchecked Sendable: after `make` returns, the SSL_CTX is never mutated again; OpenSSL
// documents creating SSL objects from a shared, no-longer-modified SSL_CTX as thread-safe
// (the context is reference counted internally).
final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        SSL_CTX_free(self.pointer)
    }

    private struct Key: Hashable {
        var verification: TLSConfiguration.CertificateVerification
        var roots: [String]
        var protocols: [String]
    }

    private static let cache = LockedValue<[Key: TLSContext]>([:])
    private static let cacheLimit = 32

    /// The shared context for `configuration`, made on first use.
    /// - Throws: `.tlsHandshakeFailed` if the context cannot be built (e.g. a root is not PEM).
    static func forConfiguration(_ configuration: TLSConfiguration) throws(NetworkError) -> TLSContext {
        let key = Key(
            verification: configuration.verification,
            roots: configuration.additionalTrustRootsPEM,
            protocols: configuration.applicationProtocols)
        if let cached = self.cache.withLock({ $0[key] }) { return cached }
        let context = try self.make(key)
        return self.cache.withLock { cache in
            if let raced = cache[key] { return raced }
            if cache.count >= self.cacheLimit { cache.removeAll() }
            cache[key] = context
            return context
        }
    }

    private static func make(_ key: Key) throws(NetworkError) -> TLSContext {
        ERR_clear_error()
        guard let pointer = SSL_CTX_new(TLS_client_method()) else {
            throw NetworkError(.tlsHandshakeFailed, "SSL_CTX_new failed: \(TLSErrors.drain())")
        }
        let context = TLSContext(pointer: pointer)
        _ = crealtime_SSL_CTX_set_min_proto_version(pointer, TLS1_2_VERSION)
        if key.verification == .none {
            SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
        } else {
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
            if SSL_CTX_set_default_verify_paths(pointer) != 1 {
                throw NetworkError(.tlsHandshakeFailed, "cannot load the system trust store: \(TLSErrors.drain())")
            }
            for (index, pem) in key.roots.enumerated() {
                try self.addTrustRoots(pem, index: index, to: pointer)
            }
        }
        if !key.protocols.isEmpty {
            var wire: [UInt8] = []
            for name in key.protocols {
                let bytes = Array(name.utf8)
                guard !bytes.isEmpty, bytes.count <= 255 else {
                    throw NetworkError(.tlsHandshakeFailed, "invalid ALPN protocol name \"\(name)\"")
                }
                wire.append(UInt8(bytes.count))
                wire += bytes
            }
            // Note: returns 0 on success (unlike most OpenSSL calls).
            if SSL_CTX_set_alpn_protos(pointer, wire, UInt32(wire.count)) != 0 {
                throw NetworkError(.tlsHandshakeFailed, "cannot set ALPN protocols: \(TLSErrors.drain())")
            }
        }
        return context
    }

    private static func addTrustRoots(_ pem: String, index: Int, to context: OpaquePointer) throws(NetworkError) {
        let bytes = Array(pem.utf8)
        guard let store = SSL_CTX_get_cert_store(context),
            let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) })
        else {
            throw NetworkError(.tlsHandshakeFailed, "cannot read additionalTrustRootsPEM[\(index)]")
        }
        defer { BIO_free(bio) }
        var added = 0
        while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
            defer { X509_free(certificate) }
            if X509_STORE_add_cert(store, certificate) == 1 { added += 1 }
        }
        ERR_clear_error()  // the loop ends with a "no start line" error
        guard added > 0 else {
            throw NetworkError(
                .tlsHandshakeFailed,
                "additionalTrustRootsPEM[\(index)] contains no PEM certificate")
        }
    }
}

/// Reads OpenSSL's thread-local error queue.
enum TLSErrors {
    /// Empties the calling thread's error queue and describes it.
    /// - Important: call it on the thread (and under the lock) of the failing OpenSSL call.
    static func drain() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while case let code = ERR_get_error(), code != 0 {
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(
                String(
                    decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
                    as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error detail" : messages.joined(separator: "; ")
    }
}
#endif
