// The native stack's tests: RealtimeIO has no sockets in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Foundation
import Glibc
import Testing
@testable import RealtimeIO

/// File-descriptor exhaustion is a typed error, never a trap: the process's soft
/// `RLIMIT_NOFILE` is lowered to just above its open descriptors, the free slots below are
/// filled, and restored (limit and descriptors) before the test returns. No root needed: only
/// the soft limit moves, within the hard one.
@Suite("File-descriptor exhaustion", .serialized)
struct DescriptorExhaustionTests {
    @Test("socket() and a new loop's epoll meet EMFILE: .tooManyOpenFiles, then recovery")
    func exhaustionIsTyped() async throws {
        // Made before the limit drops: the process default's loops and a group for the test.
        let group = EventLoopGroup(loopCount: 1)
        let loop = group.next()
        _ = EventLoopGroup.shared.next()

        // A numeric address: no resolver, `socket()` is the first descriptor a connect needs.
        let address = try #require(SocketAddress(numericHost: "127.0.0.1", port: 9))
        // Exhausted again when a descriptor freed meanwhile gave the attempt a slot: work a
        // suite before this one left (a URLSession connection the cache closes late) may close
        // one at any moment, and then `socket()` rightly succeeds.
        var outcome: (connect: NetworkError.Kind?, newLoop: NetworkError.Kind?) = (nil, nil)
        for _ in 0..<3 {
            outcome = try await self.exhaustedOutcome(address: address, loop: loop, group: group)
            if outcome.connect == .tooManyOpenFiles && outcome.newLoop == .tooManyOpenFiles { break }
        }
        #expect(outcome.connect == .tooManyOpenFiles)
        #expect(outcome.newLoop == .tooManyOpenFiles)

        // With descriptors back, the same loop connects again (refused: nothing listens on 9,
        // but a socket was made).
        do {
            _ = try await NetworkConnector.connect(
                to: Endpoint(host: "127.0.0.1", port: 9, tls: nil), timeout: .seconds(5), on: loop)
            Issue.record("connected to the discard port")
        } catch {
            #expect(error.kind == .connectionRefused)
        }
        await group.shutdown()
    }

    /// One try with every descriptor taken: what a connect and a new loop's epoll met.
    private func exhaustedOutcome(
        address: SocketAddress, loop: EventLoop, group: EventLoopGroup
    ) async throws -> (connect: NetworkError.Kind?, newLoop: NetworkError.Kind?) {
        try await Self.withDescriptorsExhausted {
            () -> (connect: NetworkError.Kind?, newLoop: NetworkError.Kind?) in
            let connect: NetworkError.Kind?
            do throws(NetworkError) {
                let stream = try await TCPStream.connect(to: address, deadline: .now + .seconds(5), on: loop)
                stream.close()
                connect = nil
            } catch {
                connect = error.kind
            }
            let starved = EventLoop(name: "starved", resolver: group.resolver)
            let newLoop: NetworkError.Kind?
            do throws(NetworkError) {
                _ = try starved.register(fileDescriptor: 0, handler: NoHandler())
                newLoop = nil
            } catch {
                newLoop = error.kind
            }
            return (connect, newLoop)
        }
    }

    final class NoHandler: EventLoopHandler {
        func handleReadiness(_ events: UInt32) {}
        func loopDidShutDown(_ error: NetworkError) {}
    }

    /// Runs `body` with the soft descriptor limit at the number of descriptors open now and
    /// every free slot below it filled, so the next descriptor fails with `EMFILE`; restores
    /// both before returning, whatever `body` does. The suites of a test process run one at a
    /// time, so nothing else asks for a descriptor meanwhile.
    static func withDescriptorsExhausted<T>(_ body: () async throws -> T) async throws -> T {
        var original = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &original) == 0)
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
        let highest = try #require(descriptors.max())
        var lowered = original
        lowered.rlim_cur = rlim_t(highest + 8)
        try #require(lowered.rlim_cur <= original.rlim_max)
        try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered) == 0)
        var fillers: [Int32] = []
        defer {
            for descriptor in fillers { close(descriptor) }
            var restore = original
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        }
        while true {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if descriptor < 0 {
                try #require(errno == EMFILE)
                break
            }
            fillers.append(descriptor)
        }
        return try await body()
    }
}

#endif
