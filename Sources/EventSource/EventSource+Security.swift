import RealtimeHTTP

extension EventSource {
    /// Which server certificates an `https` data task trusts: SocketIO's `.security` and
    /// `.selfSigned` options, for an event stream.
    ///
    /// Verification stays on by default (``default``): the system's roots, and the host name
    /// checked against the certificate. ``certificates(_:verifiesHostname:)`` trusts more
    /// certificates (a private CA, or a self-signed server's own certificate, pinned) in
    /// addition to the system's; ``selfSigned`` turns verification off, and only when you
    /// say so.
    ///
    /// ```swift
    /// var eventSource = EventSource()
    /// let pem = try String(contentsOfFile: "ca.pem", encoding: .utf8)
    /// eventSource.security = .certificates([pem])
    /// ```
    ///
    /// - Important: Applied by the native transport (OpenSSL) and, on Apple platforms, by
    ///   URLSession's server-trust challenge. URLSession on Linux (libcurl) verifies against
    ///   the system store only: there the setting is not applied (use ``Transport/native``, the
    ///   default on Linux).
    public struct Security: Sendable, Hashable {
        let configuration: TLSConfiguration

        /// The system's trust roots, host names checked: what a browser trusts.
        public static var `default`: Security {
            Security(configuration: TLSConfiguration())
        }

        /// The PEM certificates given (CA certificates, or a self-signed server's own
        /// certificate) trusted in addition to the system's roots.
        ///
        /// - Parameters:
        ///   - pem: PEM-encoded certificates (each `-----BEGIN CERTIFICATE-----` block of each
        ///     string counts).
        ///   - verifiesHostname: `false` accepts any host name on a trusted chain (a
        ///     certificate made for another name); `true` by default.
        public static func certificates(_ pem: [String], verifiesHostname: Bool = true) -> Security {
            Security(
                configuration: TLSConfiguration(
                    verification: verifiesHostname ? .fullVerification : .noHostnameVerification,
                    additionalTrustRootsPEM: pem))
        }

        /// No verification at all: any certificate is accepted, so anyone on the path can read
        /// and change the stream. For development servers only; never the default.
        public static var selfSigned: Security {
            Security(configuration: TLSConfiguration(verification: .none))
        }
    }
}
