#if os(macOS) || os(Linux)
import CommandLineSupport
import Foundation
import TestSupport
import Testing

/// `sse -k` and `sse --cacert FILE` (named as `sio`'s flags): the options, and the built tool
/// against aiohttp-sse over TLS with a certificate from a CA the system does not trust.
@Suite(.serialized, .needsTool("sse"), TestTimeLimit.minutes(3)) struct SSETLSOptionsTests {
    static let certificates = Task { try await TestCertificates.makeOffThePool() }

    @Test func theOptionsAreRead() throws {
        guard case .run(let plain) = try SSEOptions.parse(["https://localhost/"]) else { throw UsageError.unexpectedArgument("help") }
        #expect(!plain.insecure && plain.caCertificatePath == nil)
        guard case .run(let options) = try SSEOptions.parse(["-k", "--cacert", "ca.pem", "https://localhost/"]) else {
            throw UsageError.unexpectedArgument("help")
        }
        #expect(options.insecure && options.caCertificatePath == "ca.pem")
        guard case .run(let long) = try SSEOptions.parse(["--insecure", "https://localhost/"]) else {
            throw UsageError.unexpectedArgument("help")
        }
        #expect(long.insecure)
    }

    @Test func verificationIsOnUnlessAFlagSaysOtherwise() async throws {
        let certificates = try await Self.certificates.value
        let server = try await TestServer.start(
            "sse_tls_server.py", arguments: [certificates.file("localhost.pem").path, certificates.file("localhost.key").path])
        defer { server.stop() }
        let url = "https://localhost:\(server.port)/events?count=2"

        let refused = try ToolProcess("sse", [url, "-s"])
        #expect(try await refused.waitForExit() == 2)
        #expect(refused.outputLines.isEmpty)
        #expect(refused.errorText.contains("sse: connection failed"), "\(refused.errorText)")

        for flags in [["--cacert", certificates.file("ca.pem").path], ["-k"]] {
            let sse = try ToolProcess("sse", [url, "-s"] + flags)
            #expect(try await sse.waitForExit() == 0, "\(flags)")
            #expect(sse.outputLines == ["tls 1", "tls 2"], "\(flags): \(sse.errorText)")
        }
    }

    @Test func anUnusableCACertificateFileIsAUsageError() async throws {
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-cert-\(UUID().uuidString).txt")
        try Data("hello".utf8).write(to: notPEM)
        defer { try? FileManager.default.removeItem(at: notPEM) }
        for (path, message) in [("/nonexistent/ca.pem", "cannot read --cacert file"), (notPEM.path, "holds no PEM certificate")] {
            let sse = try ToolProcess("sse", ["https://localhost:1/", "--cacert", path])
            #expect(try await sse.waitForExit() == 1)
            #expect(sse.errorText.contains(message), "\(sse.errorText)")
        }
    }
}
#endif
