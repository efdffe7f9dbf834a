#if os(macOS) || os(Linux)
import Foundation
import TestSupport
import Testing

/// The built `sio` binary against the python-socketio server (`Tests/Servers/sio_server.py`):
/// stdout lines, stderr progress and exit statuses.
@Suite(.serialized, .needsTool("sio"), TestTimeLimit.minutes(3)) struct SIOEndToEndTests {
    static let welcomePrefix = #"{"event":"welcome","args":[{"sid":""#

    @Test func emitPrintsTheAckAsAJSONLineAndExitsZero() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess(
            "sio",
            [
                "http://127.0.0.1:\(server.port)", "--emit", "ack_me",
                "-d", #""hello""#, "-d", "42", "--data", #"{"a":[1,true,null,2.5]}"#,
            ])
        #expect(try await sio.waitForExit() == 0)
        let lines = sio.outputLines
        // The connect handler's `welcome` (sent before the CONNECT packet) comes first, the ack last.
        #expect(lines.first?.hasPrefix(Self.welcomePrefix) == true, "\(lines)")
        #expect(lines.last == #"{"event":"ack_me","ack":["hello",42,{"a":[1,true,null,2.5]}]}"#)
        #expect(lines.count == 2)
        #expect(sio.errorText.contains("sio: connecting to http://127.0.0.1:\(server.port) (namespace /, transport auto)\n"))
        #expect(sio.errorText.contains("sio: connected (sid "))
    }

    @Test(.needsDefaultWebSocket) func webSocketEventThenAckWithBinaryBothWays() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess(
            "sio",
            [
                "ws://127.0.0.1:\(server.port)/", "--transport", "websocket", "-e", "echo",
                "-d", #""x""#, "-d", #"{"$binary":"AAEC"}"#,
            ])
        #expect(try await sio.waitForExit() == 0)
        let lines = sio.outputLines
        let event = try #require(lines.firstIndex(of: #"{"event":"echo","args":["x",{"$binary":"AAEC"}]}"#), "\(lines)")
        let ack = try #require(lines.firstIndex(of: #"{"event":"echo","ack":["x",{"$binary":"AAEC"}]}"#), "\(lines)")
        #expect(event < ack)
        #expect(sio.errorText.contains("transport websocket"))
    }

    @Test func binaryAckItemsArePrintedAsBase64() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess("sio", ["127.0.0.1:\(server.port)", "--emit", "binary_ack", "-s"])
        #expect(try await sio.waitForExit() == 0)
        #expect(sio.outputLines.last == #"{"event":"binary_ack","ack":[{"$binary":"AAEC"},{"nested":{"$binary":"/w=="}}]}"#)
        #expect(sio.errorText.isEmpty, "--silent printed \(sio.errorText)")
    }

    @Test func noAckWithinTheTimeoutExitsThree() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess("sio", ["http://127.0.0.1:\(server.port)", "--emit", "never_ack", "--ack-timeout", "0.5"])
        #expect(try await sio.waitForExit() == 3)
        #expect(sio.errorText.contains("sio: no ack for 'never_ack' within 0.5 s"))
        #expect(!sio.outputLines.contains { $0.contains(#""ack":"#) })
    }

    @Test func aRefusedNamespaceExitsTwoWithTheServersMessage() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess("sio", ["http://127.0.0.1:\(server.port)", "--auth", #"{"token":"bad"}"#, "--emit", "ack_me"])
        #expect(try await sio.waitForExit() == 2)
        #expect(sio.errorText.contains("sio: could not connect: "))
        #expect(sio.errorText.contains("unauthorized"))
    }

    @Test func nothingListeningExitsTwo() async throws {
        let server = try await TestServer.start("sio_server.py")
        let port = server.port
        server.stop()
        let sio = try ToolProcess("sio", ["http://127.0.0.1:\(port)", "--listen", "--connect-timeout", "5"])
        #expect(try await sio.waitForExit() == 2)
        #expect(sio.errorText.contains("sio: could not connect: "))
        #expect(sio.outputLines.isEmpty)
    }

    @Test func theURLPathNamesTheNamespaceAndAuthIsSent() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess(
            "sio",
            [
                "http://127.0.0.1:\(server.port)/admin", "--auth", #"{"token":"admin-secret"}"#,
                "-e", "auth_seen",
            ])
        #expect(try await sio.waitForExit() == 0)
        #expect(sio.outputLines == [#"{"event":"auth_seen","ack":[{"token":"admin-secret"}]}"#])
        #expect(sio.errorText.contains("(namespace /admin,"))
    }

    @Test func headersReachTheServer() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess("sio", ["http://127.0.0.1:\(server.port)", "-H", "X-Client: sio-test", "-e", "environ_seen"])
        #expect(try await sio.waitForExit() == 0)
        #expect(sio.outputLines.last?.contains(#""x_client":"sio-test""#) == true, "\(sio.outputLines)")
    }

    @Test(.needsNativeTLS) func tlsVerifiesByDefaultTrustsCACertAndInsecureSkips() async throws {
        let certificates = try await TestCertificates.makeOffThePool()
        let server = try await TestServer.start(
            "sio_server.py",
            arguments: [
                "--cert", certificates.file("localhost.pem").path, "--key", certificates.file("localhost.key").path,
            ])
        let url = "https://127.0.0.1:\(server.port)"
        let untrusted = try ToolProcess("sio", [url, "-e", "ack_me", "-d", "1", "--connect-timeout", "5", "--no-reconnect"])
        #expect(try await untrusted.waitForExit() == 2)
        #expect(untrusted.errorText.contains("sio: could not connect: "))

        let trusted = try ToolProcess("sio", [url, "--cacert", certificates.file("ca.pem").path, "-e", "ack_me", "-d", "1"])
        #expect(try await trusted.waitForExit() == 0)
        #expect(trusted.outputLines.last == #"{"event":"ack_me","ack":[1]}"#)

        let insecure = try ToolProcess("sio", [url, "-k", "-e", "ack_me", "-d", "2"])
        #expect(try await insecure.waitForExit() == 0)
        #expect(insecure.outputLines.last == #"{"event":"ack_me","ack":[2]}"#)

        let unreadable = try ToolProcess("sio", [url, "--cacert", "/nonexistent/ca.pem", "-e", "ack_me"])
        #expect(try await unreadable.waitForExit() == 1)
        #expect(unreadable.errorText.contains("sio: cannot read --cacert file /nonexistent/ca.pem"))
    }

    @Test func version2SpeaksToASocketIO2Server() async throws {
        let python = TestEnvironment.repositoryRoot.appendingPathComponent(".venv-sio2/bin/python").path
        let server = try await TestServer.start("sio2_server.py", python: python)
        let sio = try ToolProcess("sio", ["http://127.0.0.1:\(server.port)", "--version2", "-e", "echo", "-d", #"{"v":2}"#])
        #expect(try await sio.waitForExit() == 0)
        #expect(sio.outputLines.contains(#"{"event":"echo","args":[{"v":2}]}"#), "\(sio.outputLines)")
        #expect(sio.outputLines.last == #"{"event":"echo","ack":[{"v":2}]}"#)
    }

    @Test func interactiveModeEmitsEachLineAndExitsZeroAtEndOfInput() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess("sio", ["http://127.0.0.1:\(server.port)", "-i", "--ack-timeout", "1"])
        sio.write("echo \"one\" 2\n")
        sio.write("# a comment\n\n")
        sio.write("ack_me {\"k\":\"v\"} [true]\n")
        sio.write("broken line {\n")
        sio.write("\"with space\"\n")
        sio.closeInput()
        #expect(try await sio.waitForExit() == 0)
        let lines = sio.outputLines
        #expect(lines.contains(#"{"event":"echo","args":["one",2]}"#), "\(lines)")
        #expect(lines.contains(#"{"event":"echo","ack":["one",2]}"#))
        #expect(lines.contains(#"{"event":"ack_me","ack":[{"k":"v"},[true]]}"#))
        // python-socketio does not answer an event it has no handler for.
        #expect(sio.errorText.contains("sio: no ack for 'with space' within 1 s"))
        #expect(sio.errorText.contains("sio: line 5: invalid JSON at offset 7"))
    }

    @Test func aServerDisconnectExitsFour() async throws {
        let server = try await TestServer.start("sio_server.py")
        let sio = try ToolProcess("sio", ["http://127.0.0.1:\(server.port)", "--interactive"])
        try await sio.waitForOutputLine { $0.hasPrefix(Self.welcomePrefix) }
        sio.write("kick\n")
        #expect(try await sio.waitForExit() == 4)
        #expect(sio.errorText.contains("sio: disconnected ("))
        sio.closeInput()
    }

    @Test func usageErrorsHelpAndVersion() async throws {
        let missing = try ToolProcess("sio", [])
        #expect(try await missing.waitForExit() == 1)
        #expect(missing.errorText.hasPrefix("Error: Missing expected argument '<url>'\nUsage: sio [<options>] <url>\n"))
        #expect(missing.outputLines.isEmpty)

        let bad = try ToolProcess("sio", ["h", "--data", "1"])
        #expect(try await bad.waitForExit() == 1)
        #expect(bad.errorText.hasPrefix("Error: '--data' requires '--emit'"))

        let notJSON = try ToolProcess("sio", ["h", "-e", "x", "-d", "hello"])
        #expect(try await notJSON.waitForExit() == 1)
        #expect(
            notJSON.errorText.hasPrefix(
                #"Error: The value 'hello' is invalid for '-d': invalid JSON at offset 0: unexpected character 'h' (quote a string: '"text"')"#
                    + "\nUsage: sio [<options>] <url>\n"))
        #expect(notJSON.outputLines.isEmpty)

        let badAuth = try ToolProcess("sio", ["h", "--auth", #"{"token":}"#])
        #expect(try await badAuth.waitForExit() == 1)
        #expect(
            badAuth.errorText.hasPrefix(
                #"Error: The value '{"token":}' is invalid for '--auth': invalid JSON at offset 9: unexpected character '}'"# + "\n"))

        let help = try ToolProcess("sio", ["--help"])
        #expect(try await help.waitForExit() == 0)
        #expect(help.outputLines.first?.hasPrefix("OVERVIEW: ") == true)
        #expect(help.outputLines.contains("EXIT STATUS:"))

        let version = try ToolProcess("sio", ["--version"])
        #expect(try await version.waitForExit() == 0)
        #expect(version.outputLines.first?.hasPrefix("sio ") == true)
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips a test of a built tool, with the reason printed, when its binary is absent.
    static func needsTool(_ name: String) -> Self {
        .disabled(if: ToolProcess.missingReason(name) != nil, Comment(rawValue: ToolProcess.missingReason(name) ?? ""))
    }
}
#endif
