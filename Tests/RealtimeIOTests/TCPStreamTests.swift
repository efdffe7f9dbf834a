// The native stack's tests: RealtimeIO has no sockets in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Testing
import TestSupport
import Glibc
@testable import RealtimeIO

@Suite("TCP streams against a real asyncio peer", TestTimeLimit.minutes(2))
struct TCPStreamTests {
    @Test("small echo round trip")
    func smallEcho() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            for message in ["hello", "a", String(repeating: "z", count: 1000)] {
                try await stream.write(Array(message.utf8))
                let reply = try await IOTestHelpers.read(stream, count: message.utf8.count)
                #expect(String(decoding: reply, as: UTF8.self) == message)
            }
        }
    }

    @Test("multi-MiB echo with concurrent reader and writer (partial reads and writes)")
    func largeEcho() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            let payload = IOTestHelpers.pattern(count: 6 * 1024 * 1024 + 17)
            async let written: Void = stream.write(payload)
            let received = try await IOTestHelpers.read(stream, count: payload.count)
            try await written
            #expect(received.count == payload.count)
            #expect(received == payload)
        }
    }

    @Test("immediate writes on the caller's thread, finished with write() once the kernel is full, arrive whole and in order")
    func immediateWrites() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            #expect(stream.supportsImmediateWrites)
            let payload = IOTestHelpers.pattern(count: 8 * 1024 * 1024 + 3)
            async let written = IOTestHelpers.writeImmediatelyInChunks(stream, payload)
            let received = try await IOTestHelpers.read(stream, count: payload.count)
            let (immediate, _) = try await written
            #expect(received == payload)
            #expect(immediate > 0)
        }
    }

    @Test("an immediate write while another write waits takes nothing")
    func immediateWriteDuringWrite() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["silent"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            // The server never reads: once the buffers are full this write waits.
            let payload = [UInt8](repeating: 7, count: 32 * 1024 * 1024)
            let blocked = Task { try await stream.write(payload) }
            var tookNothing = false
            for _ in 0..<400 where !tookNothing {
                try await Task.sleep(.milliseconds(5))
                tookNothing = try stream.writeImmediately([1, 2, 3]) == 0
            }
            #expect(tookNothing)
            stream.close()
            _ = await blocked.result
        }
    }

    @Test(
        "IPv6 loopback echo",
        .enabled(
            if: IOTestHelpers.ipv6LoopbackAvailable,
            "this machine cannot bind ::1 (no IPv6 loopback)"))
    func ipv6Echo() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo", "--host", "::1"]) { server in
            for host in ["::1", "[::1]"] {
                let stream = try await IOTestHelpers.connect(port: server.port, host: host)
                defer { stream.close() }
                try await stream.write(Array("over v6".utf8))
                #expect(try await IOTestHelpers.read(stream, count: 7) == Array("over v6".utf8))
            }
        }
    }

    @Test("host name resolution through the resolver threads (localhost)")
    func resolvesLocalhost() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            // localhost may resolve to ::1 first; the connector must fall through to 127.0.0.1.
            let stream = try await IOTestHelpers.connect(port: server.port, host: "localhost")
            defer { stream.close() }
            try await stream.write([1, 2, 3])
            #expect(try await IOTestHelpers.read(stream, count: 3) == [1, 2, 3])
        }
    }

    @Test("unknown host name fails with nameResolutionFailed")
    func unknownHost() async throws {
        let error = await IOTestHelpers.expectError(.nameResolutionFailed) {
            try await IOTestHelpers.connect(port: 9, host: "no-such-host.invalid")
        }
        #expect(error?.kind == .nameResolutionFailed)
    }

    @Test("32 concurrent connections each echo their own bytes")
    func concurrentConnections() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let port = server.port
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<32 {
                    group.addTask {
                        let stream = try await IOTestHelpers.connect(port: port)
                        defer { stream.close() }
                        let payload = IOTestHelpers.pattern(count: 50_000 + index, seed: UInt32(index + 1))
                        async let written: Void = stream.write(payload)
                        let received = try await IOTestHelpers.read(stream, count: payload.count)
                        try await written
                        return received == payload
                    }
                }
                var matches = 0
                for try await ok in group where ok { matches += 1 }
                #expect(matches == 32)
            }
        }
    }

    @Test("peer close is EOF: data, then an empty array, repeatedly")
    func endOfFile() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["greet"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            #expect(try await IOTestHelpers.read(stream, count: 5) == Array("hello".utf8))
            #expect(try await stream.read(maxLength: 100) == [])
            #expect(try await stream.read(maxLength: 100) == [])
        }
    }

    @Test("data and a FIN queued before the first read: the data (a short read), then EOF without waiting for another edge")
    func endOfFileQueuedWithTheData() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["greet"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            // Wait until "hello" and the FIN are in the receive queue (the kernel shows the socket
            // in CLOSE_WAIT), not for a sleep that is long enough only usually: the short read
            // takes both, and the 0 that follows brings no new edge.
            _ = try await server.waitForLine(timeout: .seconds(30)) { $0 == "CLOSED" }
            let finQueued = await ProcessResources.eventually(timeout: .seconds(30)) {
                LoopbackSockets.peerClosed(remotePort: server.port) ?? true
            }
            #expect(finQueued, "the server's FIN never arrived")
            #expect(try await stream.read(maxLength: 100) == Array("hello".utf8))
            let eof = Task { try await stream.read(maxLength: 100) }
            let watchdog = Task {
                try await Task.sleep(nanoseconds: 5_000_000_000)
                stream.close()
            }
            defer { watchdog.cancel() }
            #expect(try await eof.value == [])
        }
    }

    @Test("after a short read, bytes that arrive later wake the waiting reader")
    func bytesAfterAShortReadWakeTheReader() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            try await stream.write(Array("first".utf8))
            #expect(try await IOTestHelpers.read(stream, count: 5) == Array("first".utf8))
            // The read below starts with the receive queue empty (the last read was short)
            // and waits for the edge the next echo brings.
            let next = Task { try await IOTestHelpers.read(stream, count: 6) }
            try await Task.sleep(nanoseconds: 100_000_000)
            try await stream.write(Array("second".utf8))
            #expect(try await next.value == Array("second".utf8))
        }
    }

    @Test("a reset by the peer fails with connectionReset (during connect or the first read)")
    func resetByPeer() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["reset"]) { server in
            // The RST can arrive before the non-blocking connect is confirmed (SO_ERROR reports it)
            // or after; either way the caller sees connectionReset, never a hang or EOF.
            let error = await IOTestHelpers.expectError(.connectionReset) {
                let stream = try await IOTestHelpers.connect(port: server.port)
                defer { stream.close() }
                return try await stream.read(maxLength: 10)
            }
            #expect(error?.kind == .connectionReset, "\(String(describing: error))")
        }
    }

    @Test("connecting to a closed port fails with connectionRefused")
    func connectionRefused() async throws {
        let port = try #require(IOTestHelpers.closedPort())
        let error = await IOTestHelpers.expectError(.connectionRefused) {
            try await IOTestHelpers.connect(port: Int(port))
        }
        #expect(error?.kind == .connectionRefused)
    }

    @Test("a listener that drops SYNs makes connect time out on time")
    func connectTimeout() async throws {
        try await IOTestHelpers.withServer("io_blackhole.py") { server in
            let started = MonotonicInstant.now
            let error = await IOTestHelpers.expectError(.connectTimedOut) {
                try await IOTestHelpers.connect(port: server.port, timeout: .milliseconds(300))
            }
            let elapsed = MonotonicInstant.now - started
            #expect(error?.kind == .connectTimedOut)
            #expect(elapsed >= .milliseconds(290))
            // The kernel would keep retrying SYNs for ~2 minutes: only our timer ends it this soon.
            #expect(elapsed < .seconds(10))
        }
    }

    @Test("cancelling a connect fails it with cancelled promptly")
    func cancelConnect() async throws {
        try await IOTestHelpers.withServer("io_blackhole.py") { server in
            let port = server.port
            let task = Task { try await IOTestHelpers.connect(port: port, timeout: .seconds(30)) }
            try await Task.sleep(.milliseconds(100))
            let started = MonotonicInstant.now
            task.cancel()
            let result = await task.result
            // Far below the 30 s timeout: cancellation, not the deadline, ended it.
            #expect(MonotonicInstant.now - started < .seconds(10))
            #expect(throws: NetworkError.self) { try result.get() }
            if case .failure(let error as NetworkError) = result { #expect(error.kind == .cancelled) }
        }
    }

    @Test("cancelling a pending read fails it with cancelled and closes the socket")
    func cancelRead() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            let reader = Task { try await stream.read(maxLength: 100) }
            try await Task.sleep(.milliseconds(100))
            reader.cancel()
            let result = await reader.result
            if case .failure(let error as NetworkError) = result {
                #expect(error.kind == .cancelled)
            } else {
                Issue.record("read was not cancelled: \(result)")
            }
            // The server observes the close.
            _ = try await server.waitForLine(timeout: .seconds(30)) { $0 == "CLOSED" }
            // Later operations fail as closed.
            let afterwards = await IOTestHelpers.expectError(.closed) { try await stream.write([1]) }
            #expect(afterwards?.kind == .closed)
        }
    }

    @Test("close is idempotent and fails pending reads with closed")
    func closeFailsPendingRead() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            let reader = Task { try await stream.read(maxLength: 100) }
            try await Task.sleep(.milliseconds(50))
            stream.close()
            stream.close()
            if case .failure(let error as NetworkError) = await reader.result {
                #expect(error.kind == .closed)
            } else {
                Issue.record("pending read did not fail")
            }
            _ = try await server.waitForLine(timeout: .seconds(30)) { $0 == "CLOSED" }
            let error = await IOTestHelpers.expectError(.closed) { try await stream.read(maxLength: 1) }
            #expect(error?.kind == .closed)
        }
    }

    @Test("two concurrent readers: the second fails with concurrentOperation")
    func concurrentReaders() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
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

    @Test("a client that stops reading stops the sender (pull-based backpressure)")
    func readBackpressure() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["flood"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            func sent() -> Int {
                server.lines.last(where: { $0.hasPrefix("SENT ") }).flatMap { Int($0.dropFirst(5)) } ?? 0
            }
            func reports() -> Int { server.lines.count(where: { $0.hasPrefix("SENT ") }) }
            // Without reads, the sender stalls once the kernel buffers are full. "Stalled" means:
            // the server kept reporting (it was alive and scheduled) while its total stood still,
            // for three samples in a row.
            var previous = (total: -1, reports: 0)
            var stableSamples = 0
            var stalledAt = 0
            for _ in 0..<150 {
                try await Task.sleep(.milliseconds(100))
                let now = (total: sent(), reports: reports())
                if now.total > 0, now.total == previous.total, now.reports >= previous.reports + 2 {
                    stableSamples += 1
                } else if now.total != previous.total {
                    stableSamples = 0
                }
                previous = now
                if stableSamples >= 3 {
                    stalledAt = now.total
                    break
                }
            }
            #expect(stalledAt > 0, "the server never stalled")
            #expect(stalledAt < 64 * 1024 * 1024, "the server sent \(stalledAt) bytes to a client that never read")
            // Reading releases it: it was flow control, not a stuck server.
            var drained = 0
            while drained < stalledAt + 1_000_000 {
                let chunk = try await stream.read(maxLength: 1 << 20)
                #expect(!chunk.isEmpty)
                if chunk.isEmpty { break }
                drained += chunk.count
            }
            // More than the stalled total arrived: the sender resumed once the client read.
            #expect(drained >= stalledAt + 1_000_000)
        }
    }

    @Test("cancelling a write blocked by a peer that never reads fails it with cancelled")
    func cancelBlockedWrite() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["silent"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            let payload = [UInt8](repeating: 0x5A, count: 64 * 1024 * 1024)
            let writer = Task { try await stream.write(payload) }
            try await Task.sleep(.milliseconds(300))
            writer.cancel()
            if case .failure(let error as NetworkError) = await writer.result {
                #expect(error.kind == .cancelled)
            } else {
                Issue.record("a 64 MiB write to a peer that never reads completed or was not cancelled")
            }
            let afterwards = await IOTestHelpers.expectError(.closed) { try await stream.read(maxLength: 1) }
            #expect(afterwards?.kind == .closed)
        }
    }

    @Test("writing to a peer that closed fails with connectionReset (EPIPE without SIGPIPE)")
    func writeAfterPeerClosed() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["greet"]) { server in
            let stream = try await IOTestHelpers.connect(port: server.port)
            defer { stream.close() }
            #expect(try await IOTestHelpers.read(stream, count: 5) == Array("hello".utf8))
            #expect(try await stream.read(maxLength: 1) == [])
            var failure: NetworkError?
            for _ in 0..<100 where failure == nil {
                do {
                    try await stream.write([UInt8](repeating: 1, count: 1024))
                    try await Task.sleep(.milliseconds(10))
                } catch let error as NetworkError {
                    failure = error
                }
            }
            #expect(failure?.kind == .connectionReset, "\(String(describing: failure))")
        }
    }

    @Test("close racing a busy reader and writer: every call ends (data, closed or reset), none hangs")
    func closeRacesReaderAndWriter() async throws {
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { server in
            for iteration in 0..<60 {
                let stream = try await IOTestHelpers.connect(port: server.port)
                let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: iteration), count: 256 * 1024)
                let writer = Task {
                    while true { try await stream.write(payload) }
                }
                let reader = Task {
                    while true {
                        if try await stream.read(maxLength: 65_536).isEmpty { return }
                    }
                }
                try await Task.sleep(.microseconds(iteration % 7 * 500))
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
