// The native stack's tests: RealtimeIO has no sockets in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Testing
import TestSupport
@testable import RealtimeIO

@Suite("Connecting to the first of several addresses (RFC 8305, simplified)", TestTimeLimit.minutes(2))
struct HappyEyeballsTests {
    private func address(_ host: String, _ port: Int) throws -> SocketAddress {
        try #require(SocketAddress(numericHost: host, port: UInt16(port)))
    }

    @Test("families are interleaved starting with the first address's family")
    func interleaving() throws {
        let input = [
            try self.address("::1", 1), try self.address("::2", 2), try self.address("::3", 3),
            try self.address("10.0.0.1", 4), try self.address("10.0.0.2", 5),
        ]
        let ordered = NetworkConnector.interleavingFamilies(input).map(\.description)
        #expect(ordered == ["[::1]:1", "10.0.0.1:4", "[::2]:2", "10.0.0.2:5", "[::3]:3"])
    }

    @Test("a black-holed first address does not stop the second from winning after the attempt delay")
    func blackHoledFirstAddress() async throws {
        try await IOTestHelpers.withServer("io_blackhole.py") { blackhole in
            try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { echo in
                let addresses = [try self.address("127.0.0.1", blackhole.port), try self.address("127.0.0.1", echo.port)]
                let started = MonotonicInstant.now
                let stream = try await NetworkConnector.connectFirst(of: addresses, deadline: .now + .seconds(20), on: EventLoopGroup.shared.next())
                defer { stream.close() }
                let elapsed = MonotonicInstant.now - started
                #expect(stream.remoteAddress == "127.0.0.1:\(echo.port)")
                #expect(elapsed >= NetworkConnector.connectionAttemptDelay)
                #expect(elapsed < .seconds(10))
                try await stream.write([9, 9])
                #expect(try await IOTestHelpers.read(stream, count: 2) == [9, 9])
            }
        }
    }

    @Test("a refused first address falls through to the next at once")
    func refusedFirstAddress() async throws {
        let closed = try #require(IOTestHelpers.closedPort())
        try await IOTestHelpers.withServer("io_tcp_server.py", arguments: ["echo"]) { echo in
            let addresses = [try self.address("127.0.0.1", Int(closed)), try self.address("127.0.0.1", echo.port)]
            let stream = try await NetworkConnector.connectFirst(of: addresses, deadline: .now + .seconds(20), on: EventLoopGroup.shared.next())
            defer { stream.close() }
            #expect(stream.remoteAddress == "127.0.0.1:\(echo.port)")
        }
    }

    @Test("when every address fails, the error is the real failure (refused), not a cancellation")
    func allRefused() async throws {
        let first = try #require(IOTestHelpers.closedPort())
        let second = try #require(IOTestHelpers.closedPort())
        let addresses = [try self.address("127.0.0.1", Int(first)), try self.address("127.0.0.1", Int(second))]
        let error = await IOTestHelpers.expectError(.connectionRefused) {
            try await NetworkConnector.connectFirst(of: addresses, deadline: .now + .seconds(20), on: EventLoopGroup.shared.next())
        }
        #expect(error?.kind == .connectionRefused)
    }
}
#endif
