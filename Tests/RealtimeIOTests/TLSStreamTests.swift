// The native stack's tests: RealtimeIO has no sockets in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Testing
import TestSupport
@testable import RealtimeIO

/// Certificates made once for the whole suite (RSA key generation is slow), off the pool.
private let sharedCertificates = Task { try await TestCertificates.makeOffThePool() }

@Suite("TLS streams against a real asyncio TLS peer", TestTimeLimit.minutes(2))
struct TLSStreamTests {
    /// Runs `body` against a TLS server presenting `leaf`.pem.
    private func withServer(
        _ leaf: String, mode: String = "echo", bindHost: String = "127.0.0.1",
        _ body: (TestServer) async throws -> Void
    ) async throws {
        let certs = try await sharedCertificates.value
        try await IOTestHelpers.withServer(
            "io_tcp_server.py",
            arguments: [
                mode, "--host", bindHost, "--tls", certs.file("\(leaf).pem").path, certs.file("\(leaf).key").path,
            ], body)
    }

    private func trustingTestCA(
        _ verification: TLSConfiguration.CertificateVerification = .fullVerification,
        serverName: String? = nil,
        alpn: [String] = []
    ) async throws -> TLSConfiguration {
        TLSConfiguration(
            verification: verification,
            additionalTrustRootsPEM: [try await sharedCertificates.value.caCertificatePEM],
            serverName: serverName, applicationProtocols: alpn)
    }

    @Test(
        "a valid chain from the custom CA verifies for an IP literal and for localhost; echo works",
        arguments: ["127.0.0.1", "localhost"])
    func validChain(host: String) async throws {
        try await self.withServer("localhost") { server in
            let stream = try await IOTestHelpers.connect(
                port: server.port, host: host,
                tls: try await self.trustingTestCA(alpn: ["h2", "http/1.1"]))
            defer { stream.close() }
            let tls = try #require(stream as? TLSStream)
            #expect(tls.negotiatedApplicationProtocol == "http/1.1")
            try await stream.write(Array("secure hello".utf8))
            #expect(try await IOTestHelpers.read(stream, count: 12) == Array("secure hello".utf8))
        }
    }

    @Test("multi-MiB echo over TLS with concurrent reader and writer")
    func largeEcho() async throws {
        try await self.withServer("localhost") { server in
            let stream = try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA())
            defer { stream.close() }
            let payload = IOTestHelpers.pattern(count: 3 * 1024 * 1024 + 5)
            async let written: Void = stream.write(payload)
            let received = try await IOTestHelpers.read(stream, count: payload.count)
            try await written
            #expect(received == payload)
        }
    }

    @Test("immediate TLS writes (records the kernel does not take go out from the loop) arrive whole and in order")
    func immediateWrites() async throws {
        try await self.withServer("localhost") { server in
            let stream = try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA())
            defer { stream.close() }
            #expect(stream.supportsImmediateWrites)
            let payload = IOTestHelpers.pattern(count: 4 * 1024 * 1024 + 9)
            async let written = IOTestHelpers.writeImmediatelyInChunks(stream, payload)
            let received = try await IOTestHelpers.read(stream, count: payload.count)
            let (immediate, _) = try await written
            #expect(received == payload)
            #expect(immediate > 0)
        }
    }

    @Test("a certificate for another host fails with hostnameMismatch")
    func wrongHost() async throws {
        try await self.withServer("wronghost") { server in
            for host in ["localhost", "127.0.0.1"] {
                let error = await IOTestHelpers.expectError(.hostnameMismatch) {
                    try await IOTestHelpers.connect(port: server.port, host: host, tls: try await self.trustingTestCA())
                }
                #expect(error?.kind == .hostnameMismatch, "\(host): \(String(describing: error))")
                #expect(error?.message.contains(host) == true)
            }
        }
    }

    @Test("serverName overrides the name sent and verified; noHostnameVerification accepts any name")
    func serverNameAndNoHostnameVerification() async throws {
        try await self.withServer("wronghost") { server in
            let named = try await IOTestHelpers.connect(
                port: server.port,
                tls: try await self.trustingTestCA(serverName: "example.invalid"))
            try await named.write([7])
            #expect(try await named.read(maxLength: 1) == [7])
            named.close()
            let unchecked = try await IOTestHelpers.connect(
                port: server.port,
                tls: try await self.trustingTestCA(.noHostnameVerification))
            try await unchecked.write([8])
            #expect(try await unchecked.read(maxLength: 1) == [8])
            unchecked.close()
            let empty = await IOTestHelpers.expectError(.tlsHandshakeFailed) {
                try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA(serverName: ""))
            }
            #expect(empty?.kind == .tlsHandshakeFailed, "an empty server name must not disable the host check")
        }
    }

    @Test("an expired certificate fails with certificateExpired")
    func expired() async throws {
        try await self.withServer("expired") { server in
            let error = await IOTestHelpers.expectError(.certificateExpired) {
                try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA())
            }
            #expect(error?.kind == .certificateExpired, "\(String(describing: error))")
            #expect(error?.message.contains("expired") == true)
        }
    }

    @Test("a certificate from an unknown issuer fails with certificateUntrusted, even with noHostnameVerification")
    func untrustedIssuer() async throws {
        try await self.withServer("untrusted") { server in
            for verification in [TLSConfiguration.CertificateVerification.fullVerification, .noHostnameVerification] {
                let error = await IOTestHelpers.expectError(.certificateUntrusted) {
                    try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA(verification))
                }
                #expect(error?.kind == .certificateUntrusted, "\(String(describing: error))")
            }
        }
    }

    @Test("the custom CA is not trusted unless it is added (system store only)")
    func systemStoreOnly() async throws {
        try await self.withServer("localhost") { server in
            let error = await IOTestHelpers.expectError(.certificateUntrusted) {
                try await IOTestHelpers.connect(port: server.port, tls: TLSConfiguration())
            }
            #expect(error?.kind == .certificateUntrusted, "\(String(describing: error))")
        }
    }

    @Test("verification .none accepts a certificate from an unknown issuer")
    func noVerification() async throws {
        try await self.withServer("untrusted") { server in
            let stream = try await IOTestHelpers.connect(port: server.port, tls: TLSConfiguration(verification: .none))
            defer { stream.close() }
            try await stream.write(Array("trust me".utf8))
            #expect(try await IOTestHelpers.read(stream, count: 8) == Array("trust me".utf8))
        }
    }

    @Test("a peer that does not speak TLS fails with tlsHandshakeFailed")
    func plaintextPeer() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["greet"]) { server in
            let error = await IOTestHelpers.expectError(.tlsHandshakeFailed) {
                try await IOTestHelpers.connect(port: server.port, tls: TLSConfiguration(verification: .none))
            }
            #expect(error?.kind == .tlsHandshakeFailed, "\(String(describing: error))")
        }
    }

    @Test("TLS peer close is EOF after the data")
    func endOfFile() async throws {
        try await self.withServer("localhost", mode: "greet") { server in
            let stream = try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA())
            defer { stream.close() }
            #expect(try await IOTestHelpers.read(stream, count: 5) == Array("hello".utf8))
            #expect(try await stream.read(maxLength: 10) == [])
        }
    }

    @Test("cancelling a pending TLS read fails it with cancelled and the server sees the close")
    func cancelRead() async throws {
        try await self.withServer("localhost") { server in
            let stream = try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA())
            let reader = Task { try await stream.read(maxLength: 100) }
            try await Task.sleep(.milliseconds(100))
            reader.cancel()
            if case .failure(let error as NetworkError) = await reader.result {
                #expect(error.kind == .cancelled)
            } else {
                Issue.record("the read was not cancelled")
            }
            _ = try await server.waitForLine(timeout: .seconds(30)) { $0 == "CLOSED" }
        }
    }

    @Test("the connect timeout covers the TLS handshake (a server that never answers the ClientHello)")
    func handshakeTimeout() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["silent"]) { server in
            let started = MonotonicInstant.now
            let error = await IOTestHelpers.expectError(.connectTimedOut) {
                try await IOTestHelpers.connect(
                    port: server.port, tls: TLSConfiguration(verification: .none),
                    timeout: .milliseconds(400))
            }
            #expect(error?.kind == .connectTimedOut, "\(String(describing: error))")
            #expect(MonotonicInstant.now - started >= .milliseconds(390))
            _ = try await server.waitForLine(timeout: .seconds(30)) { $0 == "ACCEPTED" }
        }
    }

    @Test(
        "an IPv6 literal is verified against the certificate's IP SAN",
        .enabled(
            if: IOTestHelpers.ipv6LoopbackAvailable, "this machine cannot bind ::1 (no IPv6 loopback)"))
    func ipv6Literal() async throws {
        try await self.withServer("localhost", bindHost: "::1") { server in
            let stream = try await IOTestHelpers.connect(port: server.port, host: "::1", tls: try await self.trustingTestCA())
            defer { stream.close() }
            try await stream.write([6])
            #expect(try await stream.read(maxLength: 1) == [6])
        }
        // A certificate without the ::1 SAN must not verify for [::1].
        try await self.withServer("wronghost", bindHost: "::1") { server in
            let error = await IOTestHelpers.expectError(.hostnameMismatch) {
                try await IOTestHelpers.connect(port: server.port, host: "[::1]", tls: try await self.trustingTestCA())
            }
            #expect(error?.kind == .hostnameMismatch, "\(String(describing: error))")
        }
    }

    @Test("two concurrent TLS readers: the second fails with concurrentOperation")
    func concurrentReaders() async throws {
        try await self.withServer("localhost") { server in
            let stream = try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA())
            defer { stream.close() }
            // Two reads at once, no sleep deciding which starts first: the one that comes second
            // fails at once (nothing was written, so the other cannot end), and that failure is
            // the signal that the other read is pending. Then the pending read gets the byte.
            let (ended, ends) = AsyncStream.makeStream(of: (Int, Result<[UInt8], any Error>).self)
            let readers = (0..<2).map { index in
                Task {
                    do {
                        ends.yield((index, .success(try await stream.read(maxLength: 10))))
                    } catch {
                        ends.yield((index, .failure(error)))
                    }
                }
            }
            var results = ended.makeAsyncIterator()
            let (second, failure) = try #require(await results.next())
            if case .failure(let error as NetworkError) = failure {
                #expect(error.kind == .concurrentOperation)
            } else {
                Issue.record("the second read did not fail with a NetworkError: \(failure)")
            }
            try await stream.write([42])
            let (first, read) = try #require(await results.next())
            #expect(first != second)
            #expect(try read.get() == [42])
            for reader in readers { await reader.value }
        }
    }

    /// The flusher task a partial immediate write starts belongs to the stream: closing or
    /// dropping the stream ends it even though the peer never reads again, and the task does
    /// not keep a dropped stream (and its socket) alive.
    @Test(
        "the flusher task of a partial immediate write ends when its stream is closed or dropped",
        arguments: [false, true])
    func flusherTaskEndsWithItsStream(dropped: Bool) async throws {
        try await self.withServer("localhost", mode: "silent") { server in
            var stream: TLSStream? = try #require(
                try await IOTestHelpers.connect(port: server.port, tls: try await self.trustingTestCA()) as? TLSStream)
            weak let weakStream = stream
            // Fill the socket buffers until the kernel stops taking records: the rest of the
            // last immediate write then waits in the flusher task (one still there after
            // 200 ms: the peer, which buffers some bytes before it stops reading, took no more).
            let chunk = [UInt8](repeating: 7, count: 60_000)
            var task: Task<Void, Never>?
            for _ in 0..<10_000 {
                if let running = stream?.runningFlusherTask {
                    try await Task.sleep(.milliseconds(200))
                    if stream?.runningFlusherTask == running {
                        task = running
                        break
                    }
                } else if try stream?.writeImmediately(chunk) == 0 {
                    try await Task.sleep(.milliseconds(1))  // another flush is in progress
                }
            }
            let flusher = try #require(task, "the kernel took every record")
            if dropped {
                stream = nil
                #expect(weakStream == nil, "the flusher task kept its stream alive")
            } else {
                stream?.close()
            }
            await flusher.value
            #expect(flusher.isCancelled)
            #expect(stream?.runningFlusherTask == nil)
            withExtendedLifetime(stream) {}
        }
    }

    @Test("close racing a busy TLS reader and writer: every call ends with data, closed or reset")
    func closeRacesReaderAndWriter() async throws {
        try await self.withServer("localhost") { server in
            let configuration = try await self.trustingTestCA()
            for iteration in 0..<20 {
                let stream = try await IOTestHelpers.connect(port: server.port, tls: configuration)
                let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: iteration), count: 200_000)
                let writer = Task {
                    while true { try await stream.write(payload) }
                }
                let reader = Task {
                    while true {
                        if try await stream.read(maxLength: 65_536).isEmpty { return }
                    }
                }
                try await Task.sleep(.microseconds(iteration % 5 * 1000))
                stream.close()
                // Neither loop ends on its own (the echo server closes only after we do): each must
                // end with a NetworkError, closed or reset; a success or another error fails.
                for (name, result) in [("writer", await writer.result.map { _ in () }), ("reader", await reader.result)] {
                    switch result {
                    case .failure(let error as NetworkError):
                        #expect([.closed, .connectionReset].contains(error.kind), "\(name): \(error)")
                    case .failure(let error):
                        Issue.record("\(name) ended with \(type(of: error)): \(error)")
                    case .success:
                        Issue.record("\(name) ended without an error after close()")
                    }
                }
            }
        }
    }
}
#endif
