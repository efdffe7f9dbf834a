import Foundation
import TestSupport
import Testing

@testable import EventSource

/// `EventSource.security` against an aiohttp-sse server over TLS whose certificates come from a
/// throwaway CA the system does not trust: the default refuses them all, extra trusted
/// certificates admit the ones they sign (and a wrong host name only when asked), and
/// `.selfSigned` admits anything. Native transport: URLSession on Linux does not apply the
/// setting (libcurl), and on Apple platforms applies it in the server-trust challenge.
@Suite(.serialized, TestTimeLimit.minutes(2), .enabled(if: !BuildConfiguration.noNativeStack))
struct EventSourceSecurityTests {
    static let certificates = Task { try await TestCertificates.makeOffThePool() }

    /// What a data task with `security` reports against a server presenting `leaf`.
    static func outcome(leaf: String, security: EventSource.Security?) async throws -> String {
        let certificates = try await Self.certificates.value
        let server = try await TestServer.start(
            "sse_tls_server.py", arguments: [certificates.file("\(leaf).pem").path, certificates.file("\(leaf).key").path])
        defer { server.stop() }
        var eventSource = EventSource(timeoutInterval: 10, transport: .native)
        if let security { eventSource.security = security }
        let events = await summaries(of: eventSource.dataTask(for: URLRequest(url: URL(string: "https://localhost:\(server.port)/events")!)))
        if events == ["open", "event(tick,1,tls 1)", "event(tick,2,tls 2)", "closed"] {
            _ = try await server.waitForLine { $0 == "GET /events" }
            return "streamed"
        }
        #expect(!server.lines.contains("GET /events"), "\(leaf): \(events)")
        return events.count == 2 && events[0].hasPrefix("error(url ") && events[1] == "closed" ? "refused" : "\(events)"
    }

    @Test func verificationStaysOnByDefault() async throws {
        for leaf in ["localhost", "wronghost", "untrusted"] {
            #expect(try await Self.outcome(leaf: leaf, security: nil) == "refused", "\(leaf)")
            #expect(try await Self.outcome(leaf: leaf, security: .default) == "refused", "\(leaf)")
        }
    }

    @Test func extraCertificatesAdmitWhatTheySign() async throws {
        let ca = try await Self.certificates.value.caCertificatePEM
        #expect(try await Self.outcome(leaf: "localhost", security: .certificates([ca])) == "streamed")
        #expect(try await Self.outcome(leaf: "wronghost", security: .certificates([ca])) == "refused")
        #expect(try await Self.outcome(leaf: "wronghost", security: .certificates([ca], verifiesHostname: false)) == "streamed")
        #expect(try await Self.outcome(leaf: "untrusted", security: .certificates([ca], verifiesHostname: false)) == "refused")
        #expect(try await Self.outcome(leaf: "expired", security: .certificates([ca])) == "refused")
    }

    /// A self-signed server's own certificate, pinned: trusted as its own root.
    @Test func aPinnedSelfSignedCertificate() async throws {
        let directory = try await Self.certificates.value.directory
        try await Self.makeSelfSigned(in: directory)
        let pem = try String(contentsOf: directory.appendingPathComponent("selfsigned.pem"), encoding: .utf8)
        #expect(try await Self.outcome(leaf: "selfsigned", security: .certificates([pem])) == "streamed")
        #expect(try await Self.outcome(leaf: "selfsigned", security: nil) == "refused")
    }

    /// `selfsigned.pem`/`.key` for localhost, made by `openssl` on a thread of its own.
    static func makeSelfSigned(in directory: URL) async throws {
        #if os(macOS) || os(Linux)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.currentDirectoryURL = directory
                process.arguments = [
                    "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "selfsigned.key", "-out",
                    "selfsigned.pem", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                ]
                process.standardError = FileHandle.nullDevice
                continuation.resume(
                    with: Result {
                        try process.run()
                        process.waitUntilExit()
                        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
                    })
            }.start()
        }
        #else
        // No child processes on iOS, tvOS and watchOS (the TLS servers cannot run there either).
        throw CocoaError(.featureUnsupported)
        #endif
    }

    @Test func selfSignedAcceptsAnything() async throws {
        for leaf in ["wronghost", "untrusted", "expired"] {
            #expect(try await Self.outcome(leaf: leaf, security: .selfSigned) == "streamed", "\(leaf)")
        }
    }
}
