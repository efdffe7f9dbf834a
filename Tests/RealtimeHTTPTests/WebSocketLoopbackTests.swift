import Foundation
import RealtimeHTTP
import RealtimeIO
import TestSupport
import Testing

/// The native client against the real Python `websockets` 17.4 server
/// (`Tests/Servers/ws_echo_server.py`).
@Suite(.serialized, TestTimeLimit.minutes(2)) struct WebSocketLoopbackTests {
    static func connect(
        _ server: TestServer, _ path: String, options: WebSocketOptions = WebSocketOptions(),
        scheme: String = "ws", host: String = "127.0.0.1"
    ) async throws -> WebSocketClientConnection {
        try await WebSocketClient().openConnection(
            to: URL(string: "\(scheme)://\(host):\(server.port)\(path)")!,
            options: options)
    }

    @Test func echoesTextAndBinary() async throws {
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/echo")
        let messages: [WebSocketMessage] = [
            .text("hello"), .text(""), .text("κόσμε 🌍"), .binary([]), .binary([0, 1, 2, 255]),
            .text(String(repeating: "x", count: 125)), .text(String(repeating: "y", count: 126)),
            .binary([UInt8](repeating: 7, count: 65_536)),
        ]
        for message in messages {
            try await connection.send(message)
            #expect(try await connection.receive() == message)
        }
        await connection.close(code: 1000, reason: "done")
        #expect(connection.closeStatus?.code == 1000)
    }

    @Test func largeMessagesBothWays() async throws {
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/large?size=1000000")
        let expected = (0..<1_000_000).map { UInt8($0 % 251) }
        #expect(try await connection.receive() == .binary(expected))
        let upload = (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await connection.send(.binary(upload))
        #expect(try await connection.receive() == .binary(upload))
        await connection.close(code: 1000, reason: "")
    }

    @Test func fragmentedMessageFromTheServer() async throws {
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/fragmented?count=5&size=1000")
        let expected = (0..<5).map { String(repeating: String(UnicodeScalar(UInt8(97 + $0))), count: 1000) }.joined()
        #expect(try await connection.receive() == .text(expected))
        await connection.close(code: 1000, reason: "")
    }

    @Test func serverInitiatedCloseWithCodeAndReason() async throws {
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/close?code=4001&reason=going%20away")
        #expect(try await connection.receive() == nil)
        #expect(connection.closeStatus?.code == 4001)
        #expect(connection.closeStatus?.reason == "going away")
        #expect(await webSocketErrorKind { try await connection.send(.text("after close")) } == .closed(code: 4001))
    }

    @Test func customHeadersReachTheServerAndResponseHeadersAreExposed() async throws {
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        var options = WebSocketOptions()
        options.headers.add(name: "X-Test", value: "abc-123")
        options.headers.add(name: "Cookie", value: "session=s3cr3t")
        let connection = try await Self.connect(server, "/headers", options: options)
        #expect(connection.responseHeaders.first(name: "x-echo-test") == "abc-123")
        guard case .text(let json)? = try await connection.receive() else {
            Issue.record("no header echo")
            return
        }
        let headers = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
        #expect(headers["X-Test"] == "abc-123")
        #expect(headers["Cookie"] == "session=s3cr3t")
        #expect(headers["Sec-WebSocket-Version"] == "13")
        #expect(headers["Host"] == "127.0.0.1:\(server.port)")
        #expect(headers["Sec-WebSocket-Extensions"] == nil)
        await connection.close(code: 1000, reason: "")
    }

    @Test func serverPingIsAnswered() async throws {
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/ping")
        #expect(try await connection.receive() == .text("pong:ok"))
        await connection.close(code: 1000, reason: "")
    }

    @Test func compressionNegotiatedAndRoundTrips() async throws {
        let server = try await TestServer.start("ws_echo_server.py")
        defer { server.stop() }
        let connection = try await Self.connect(server, "/extensions", options: WebSocketOptions(enableCompression: true))
        let negotiated = try #require(connection.compression)
        #expect(negotiated.clientMaxWindowBits == 12)
        guard case .text(let extensions)? = try await connection.receive() else {
            Issue.record("no extensions echo")
            return
        }
        #expect(extensions.hasPrefix("permessage-deflate"))
        // Several messages, so the shared compression context is exercised both ways.
        for round in 0..<5 {
            let text = String(repeating: "compress me \(round) ", count: 5000)
            try await connection.send(.text(text))
            #expect(try await connection.receive() == .text(text))
            let binary = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 / 100 + round) }
            try await connection.send(.binary(binary))
            #expect(try await connection.receive() == .binary(binary))
        }
        await connection.close(code: 1000, reason: "")
        #expect(connection.closeStatus?.code == 1000)
    }

    @Test func compressionDeclinedByServer() async throws {
        let server = try await TestServer.start("ws_echo_server.py", arguments: ["--no-compression"])
        defer { server.stop() }
        let connection = try await Self.connect(server, "/echo", options: WebSocketOptions(enableCompression: true))
        #expect(connection.compression == nil)
        try await connection.send(.text("plain"))
        #expect(try await connection.receive() == .text("plain"))
        await connection.close(code: 1000, reason: "")
    }

    @Test func secureWebSocketWithTestCertificates() async throws {
        let certificates = try TestCertificates.make()
        let server = try await TestServer.start(
            "ws_echo_server.py",
            arguments: [
                "--tls", certificates.file("localhost.pem").path, certificates.file("localhost.key").path,
            ])
        defer { server.stop() }
        var options = WebSocketOptions(enableCompression: true)
        options.tls = TLSConfiguration(additionalTrustRootsPEM: [certificates.caCertificatePEM])
        let connection = try await Self.connect(server, "/echo", options: options, scheme: "wss", host: "localhost")
        try await connection.send(.text("over TLS"))
        #expect(try await connection.receive() == .text("over TLS"))
        let big = [UInt8](repeating: 42, count: 1_000_000)
        try await connection.send(.binary(big))
        #expect(try await connection.receive() == .binary(big))
        await connection.close(code: 1000, reason: "")

        // Without the CA the certificate is not trusted.
        let untrusted = await webSocketErrorKind {
            _ = try await Self.connect(server, "/echo", scheme: "wss", host: "localhost")
        }
        #expect(untrusted == .network(.certificateUntrusted))
    }

    /// A receive waiting on a real socket, plain or TLS, ends with `.cancelled` when its task
    /// is cancelled, and the connection is closed: the stream's own cancellation handling,
    /// with no handler of the connection's around the read.
    @Test(arguments: [false, true]) func cancellingAWaitingReceiveClosesTheConnection(tls: Bool) async throws {
        let certificates = try TestCertificates.make()
        let tlsArguments = [certificates.file("localhost.pem").path, certificates.file("localhost.key").path]
        let server = try await TestServer.start("ws_echo_server.py", arguments: tls ? ["--tls"] + tlsArguments : [])
        defer { server.stop() }
        var options = WebSocketOptions()
        options.tls = TLSConfiguration(additionalTrustRootsPEM: [certificates.caCertificatePEM])
        let connection = try await Self.connect(
            server, "/echo", options: options, scheme: tls ? "wss" : "ws", host: tls ? "localhost" : "127.0.0.1")
        let receiving = Task { try await connection.receive() }
        try await Task.sleep(.milliseconds(100))
        receiving.cancel()
        #expect(await webSocketErrorKind { _ = try await receiving.value } == .cancelled)
        // Closed: a send fails instead of reaching the echo server.
        #expect(await webSocketErrorKind { try await connection.send(.text("after")) } != nil)
    }

    @Test func connectionRefused() async throws {
        // Bind and release a port so nothing listens there.
        let server = try await TestServer.start("ws_echo_server.py")
        server.stop()
        let kind = await webSocketErrorKind { _ = try await Self.connect(server, "/echo") }
        #expect(kind == .network(.connectionRefused))
    }
}
