/// TLS client settings. Verification is on by default.
package struct TLSConfiguration: Sendable, Hashable {
    package enum CertificateVerification: Sendable, Hashable {
        /// Chain against the trust roots and host name against the certificate (the default).
        case fullVerification
        /// Chain only: accepts any host name. For tests and pinned private deployments.
        case noHostnameVerification
        /// No verification at all: accepts self-signed certificates. Never the default.
        case none
    }

    package var verification: CertificateVerification = .fullVerification
    /// PEM-encoded CA certificates trusted in addition to the system store.
    package var additionalTrustRootsPEM: [String] = []
    /// Overrides the name sent in SNI and checked against the certificate (default: the host).
    package var serverName: String?
    /// ALPN protocols to offer, e.g. `["http/1.1"]`.
    package var applicationProtocols: [String] = []

    package init(
        verification: CertificateVerification = .fullVerification,
        additionalTrustRootsPEM: [String] = [],
        serverName: String? = nil,
        applicationProtocols: [String] = []
    ) {
        self.verification = verification
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
        self.serverName = serverName
        self.applicationProtocols = applicationProtocols
    }
}
