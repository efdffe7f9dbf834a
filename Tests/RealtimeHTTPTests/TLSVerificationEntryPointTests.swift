import Foundation
import RealtimeIO
import TestSupport
import Testing

@testable import RealtimeHTTP

/// TLS verification through the HTTP and WebSocket clients (not only `TLSStream`): with the
/// test CA trusted, a certificate for another name, an expired one and one from an unknown
/// issuer are each refused with their own typed error; only an explicit option weakens it.
@Suite(.serialized, TestTimeLimit.minutes(2)) struct TLSVerificationEntryPointTests {
    static let certificates = Task { try await TestCertificates.makeOffThePool() }

    static let cases: [(leaf: String, kind: NetworkError.Kind)] = [
        ("wronghost", .hostnameMismatch), ("expired", .certificateExpired), ("untrusted", .certificateUntrusted),
    ]

    func withTLSServer(_ leaf: String, _ body: (TestServer, TestCertificates) async throws -> Void) async throws {
        let certificates = try await Self.certificates.value
        let server = try await TestServer.start(
            "io_tcp_server.py",
            arguments: [
                "echo", "--tls", certificates.file("\(leaf).pem").path, certificates.file("\(leaf).key").path,
            ])
        defer { server.stop() }
        try await body(server, certificates)
    }

    @Test(arguments: Self.cases)
    func httpClientRefusesTheCertificate(_ leaf: String, _ kind: NetworkError.Kind) async throws {
        try await self.withTLSServer(leaf) { server, certificates in
            let client = HTTPClient()
            let url = URL(string: "https://localhost:\(server.port)/")!
            let trusted = TLSConfiguration(additionalTrustRootsPEM: [certificates.caCertificatePEM])
            let refused = await failureKind { _ = try await client.execute(HTTPClientRequest(url: url, tls: trusted)) }
            #expect(refused == .http(.network(kind)), "\(leaf)")
            // The default (system store only) refuses it too.
            let byDefault = await failureKind { _ = try await client.execute(HTTPClientRequest(url: url)) }
            #expect(byDefault != .none, "\(leaf)")
        }
    }

    @Test(arguments: Self.cases)
    func webSocketClientRefusesTheCertificate(_ leaf: String, _ kind: NetworkError.Kind) async throws {
        try await self.withTLSServer(leaf) { server, certificates in
            var options = WebSocketOptions()
            options.tls = TLSConfiguration(additionalTrustRootsPEM: [certificates.caCertificatePEM])
            let refused = await webSocketErrorKind {
                _ = try await WebSocketClient().openConnection(
                    to: URL(string: "wss://localhost:\(server.port)/")!,
                    options: options)
            }
            #expect(refused == .network(kind), "\(leaf)")
            // Only `verification: .none` lets it through the handshake (the echo server then
            // answers the upgrade request with itself: not a 101).
            options.tls = TLSConfiguration(verification: .none)
            let weakened = await webSocketErrorKind {
                _ = try await WebSocketClient().openConnection(
                    to: URL(string: "wss://localhost:\(server.port)/")!,
                    options: options)
            }
            #expect(weakened != .network(kind), "\(leaf)")
        }
    }
}
