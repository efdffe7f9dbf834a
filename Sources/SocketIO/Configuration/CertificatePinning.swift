/// Decides which server certificates the engine trusts (the `.security` option).
///
/// Upstream takes Starscream's `CertificatePinning`, which evaluates a `SecTrust`; `SecTrust`
/// does not exist on Linux, so this library's protocol of the same name describes trust as
/// data the native TLS layer (OpenSSL) can apply to both polling and WebSocket connections.
///
/// Verification stays on: the certificates listed here are trusted *in addition* to the
/// system roots, and host names are still checked unless `verifiesHostname` is `false`.
public protocol CertificatePinning: AnyObject {
    /// PEM-encoded CA (or self-signed leaf) certificates to trust.
    var trustedCertificatesPEM: [String] { get }

    /// `false` skips the host-name check (the chain is still verified). Default `true`.
    var verifiesHostname: Bool { get }
}

extension CertificatePinning {
    /// Default implementation: host names are verified.
    public var verifiesHostname: Bool { true }
}

/// A ``CertificatePinning`` holding PEM certificates.
///
/// ```swift
/// let pem = try String(contentsOfFile: "ca.pem", encoding: .utf8)
/// let manager = SocketManager(socketURL: url, config: [.security(PEMCertificatePinning(certificates: [pem]))])
/// ```
public final class PEMCertificatePinning: CertificatePinning, Sendable {
    /// The PEM certificates given at creation, trusted in addition to the system roots.
    public let trustedCertificatesPEM: [String]
    /// Whether the server's host name is checked (`true` unless given `false`).
    public let verifiesHostname: Bool

    /// - Parameters:
    ///   - certificates: PEM-encoded certificates trusted in addition to the system roots.
    ///   - verifiesHostname: `false` accepts any host name on a trusted chain.
    public init(certificates: [String], verifiesHostname: Bool = true) {
        self.trustedCertificatesPEM = certificates
        self.verifiesHostname = verifiesHostname
    }
}
