import Foundation
import TestSupport
import Testing

@testable import EventSource

/// EventSource verifies TLS on both transports: the test CA is not in the system store, so
/// every certificate it signed (and one from another unknown issuer, an expired one, one for
/// another name) is refused with a certificate error, and no request reaches the server.
@Suite(.serialized) struct EventSourceTLSTests {
    static let certificates = Task { try await TestCertificates.makeOffThePool() }

    static let certificateErrors: Set<URLError.Code> = [
        .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
        .serverCertificateNotYetValid, .secureConnectionFailed, .clientCertificateRejected,
    ]

    @Test(arguments: LoopbackTests.transports, ["localhost", "wronghost", "expired", "untrusted"])
    func certificatesTheSystemDoesNotTrustAreRefused(transport: EventSource.Transport, leaf: String) async throws {
        let certificates = try await Self.certificates.value
        let server = try await TestServer.start(
            "io_tcp_server.py",
            arguments: [
                "echo", "--tls", certificates.file("\(leaf).pem").path, certificates.file("\(leaf).key").path,
            ])
        defer { server.stop() }
        let task = EventSource(timeoutInterval: 10, transport: transport)
            .dataTask(for: URLRequest(url: URL(string: "https://localhost:\(server.port)/events")!))
        var errors: [URLError.Code] = []
        var untyped = 0
        var others: [String] = []
        for await event in task.events() {
            switch event {
            case .error(let error as URLError): errors.append(error.code)
            case .error(EventSourceError.undefinedConnectionError): untyped += 1
            case .closed: break
            default: others.append(event.summary)
            }
        }
        // Never opened, never an event: one error, then closed.
        #expect(others.isEmpty, "\(transport) \(leaf): \(others)")
        if case .native = transport.kind {
            #expect(
                errors.count == 1 && errors.allSatisfy { Self.certificateErrors.contains($0) },
                "\(transport) \(leaf): \(errors.map(\.rawValue))")
        } else {
            // URLSession on Linux (libcurl) reports the failure without a certificate code:
            // refused all the same, but untyped (see docs/RELIABILITY.md).
            #expect(errors.count + untyped == 1, "\(transport) \(leaf): \(errors.map(\.rawValue)), \(untyped)")
        }
        // The echo server would have echoed a request back; nothing but the handshake happened.
        #expect(!server.lines.contains { $0.hasPrefix("GET") })
    }
}
