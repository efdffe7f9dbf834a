// The native stack's tests: RealtimeIO has no sockets in the REALTIME_NO_NATIVE_STACK build.
import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Foundation
import Glibc
import TestSupport
@testable import RealtimeIO

/// Small helpers shared by the RealtimeIO loopback tests.
enum IOTestHelpers {
    /// Connects to 127.0.0.1 (or `host`) on `port` with a generous timeout.
    static func connect(
        port: Int, host: String = "127.0.0.1", tls: TLSConfiguration? = nil,
        timeout: TimeAmount = .seconds(20), on loop: EventLoop = EventLoopGroup.shared.next()
    ) async throws -> any ByteStream {
        try await NetworkConnector.connect(
            to: Endpoint(host: host, port: UInt16(port), tls: tls), timeout: timeout, on: loop)
    }

    /// Starts `Tests/Servers/<script>`, runs `body`, and stops the server on a dedicated thread
    /// (`TestServer.stop()` sleeps and waits for the process: never on the cooperative pool).
    static func withServer<T>(
        _ script: String, arguments: [String] = [],
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let server = try await TestServer.start(script, arguments: arguments)
        do {
            let result = try await body(server)
            await self.stopOffThePool(server)
            return result
        } catch {
            await self.stopOffThePool(server)
            throw error
        }
    }

    static func stopOffThePool(_ server: TestServer) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                server.stop()
                continuation.resume()
            }.start()
        }
    }

    /// Reads until `count` bytes arrived (or EOF).
    static func read(_ stream: any ByteStream, count: Int) async throws -> [UInt8] {
        var received: [UInt8] = []
        received.reserveCapacity(count)
        while received.count < count {
            let chunk = try await stream.read(maxLength: min(65_536, count - received.count))
            if chunk.isEmpty { break }
            received += chunk
        }
        return received
    }

    /// Deterministic pseudo-random bytes.
    /// Writes `payload` in chunks through ``ByteStream/writeImmediately(_:)``, finishing the part
    /// of a chunk it did not take with ``ByteStream/write(_:)``.
    /// - Returns: the bytes taken immediately, and how many chunks were only partly taken.
    static func writeImmediatelyInChunks(
        _ stream: any ByteStream, _ payload: [UInt8],
        chunk: Int = 48 * 1024
    ) async throws -> (immediate: Int, partial: Int) {
        var immediate = 0
        var partial = 0
        var offset = 0
        while offset < payload.count {
            let bytes = Array(payload[offset..<min(offset + chunk, payload.count)])
            let taken = try stream.writeImmediately(bytes)
            immediate += taken
            if taken < bytes.count {
                partial += 1
                try await stream.write(Array(bytes[taken...]))
            }
            offset += bytes.count
        }
        return (immediate, partial)
    }

    static func pattern(count: Int, seed: UInt32 = 0x9E37_79B9) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// A loopback port that was bound and then closed, so nothing listens on it.
    static func closedPort() -> UInt16? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether this machine can bind the IPv6 loopback `::1`.
    static let ipv6LoopbackAvailable: Bool = {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }()

    /// Runs `body`, which should fail, and returns the NetworkError it threw (`nil` if it
    /// succeeded or threw something else). Callers assert the kind (`expected` documents it).
    static func expectError<T>(
        _ expected: NetworkError.Kind,
        _ body: () async throws -> T
    ) async -> NetworkError? {
        do {
            _ = try await body()
            return nil
        } catch let error as NetworkError {
            return error
        } catch {
            return nil
        }
    }
}
#endif
