import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Glibc
import Synchronization

/// A plain TCP ``ByteStream`` over a non-blocking socket driven by the ``EventLoop``.
///
/// Reads are pulled: `recv` runs only inside ``read(maxLength:)``, so a caller that stops
/// reading lets the kernel's receive window fill and TCP flow control stop the peer. Each call
/// first tries the syscall directly on the caller's thread and suspends only on `EAGAIN`.
///
/// - Important: One reader and one writer may run concurrently; a second concurrent reader (or
///   writer) fails with `.concurrentOperation`. Cancelling a task suspended in a read or write
///   closes the stream and fails that call with `.cancelled` (the other direction's pending call
///   fails with `.closed`). A call from an already-cancelled task still returns what the kernel
///   can deliver at once, and fails with `.cancelled` (closing the stream) only if it would have
///   to wait. A read returns at most 256 KiB (``ReadBuffer/size``) however large `maxLength`
///   is. Dropping the last reference closes the socket.
package final class TCPStream: ByteStream {
    let core: SocketCore
    /// Receive buffer reused by every read (the single reader, or the TLS layer on top, which
    /// is then the only reader): `recv` lands here and exactly the bytes received are copied out,
    /// so a read allocates one right-sized array and nothing when the socket has no data yet.
    let readBuffer = ReadBuffer()
    private let isReading = Atomic<Bool>(false)
    private let isWriting = Atomic<Bool>(false)

    /// The peer's address, e.g. `127.0.0.1:8080`.
    package var remoteAddress: String { self.core.remoteAddress.description }

    init(core: SocketCore) {
        self.core = core
    }

    deinit {
        self.core.close()
    }

    /// The loop the stream lives on.
    package var eventLoop: EventLoop { self.core.loop }

    /// Opens a TCP connection to one address (non-blocking connect, `TCP_NODELAY`) on `loop`.
    ///
    /// - Throws: `.connectionRefused`, `.connectTimedOut` (at `deadline`), `.cancelled`,
    ///   `.tooManyOpenFiles` (`socket()` met `EMFILE` / `ENFILE`), `.eventLoopShutDown`, or
    ///   `.systemError`. The socket is closed on failure.
    static func connect(
        to address: SocketAddress,
        deadline: MonotonicInstant, on loop: EventLoop
    ) async throws(NetworkError) -> TCPStream {
        if loop.isShutDown {
            throw NetworkError(.eventLoopShutDown, "the event loop \(loop.name) was shut down")
        }
        let descriptor = socket(
            address.family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            Int32(IPPROTO_TCP))
        guard descriptor >= 0 else {
            throw SystemErrno.descriptorError(errno, operation: "socket()")
        }
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = address.withSocketAddress { Glibc.connect(descriptor, $0, $1) }
        let connectErrno = result == 0 ? 0 : errno
        if result != 0 && connectErrno != EINPROGRESS && connectErrno != EINTR {
            Glibc.close(descriptor)
            throw SystemErrno.connectError(connectErrno, address: address.description)
        }
        let stream = TCPStream(core: try SocketCore(fileDescriptor: descriptor, remoteAddress: address, loop: loop))
        if result != 0 {
            stream.core.armConnectDeadline(deadline)
            do {
                try await stream.core.finishConnect()
            } catch {
                stream.close()
                throw error
            }
        }
        return stream
    }

    // MARK: ByteStream

    package func read(maxLength: Int) async throws(NetworkError) -> [UInt8] {
        guard self.isReading.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw NetworkError(.concurrentOperation, "read called while another read is pending")
        }
        defer { self.isReading.store(false, ordering: .releasing) }
        let buffer = self.readBuffer.bytes
        let count = try await self.core.receive(
            into: UnsafeMutableRawBufferPointer(
                rebasing: buffer[0..<min(max(1, maxLength), buffer.count)]))
        return [UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    package func write(_ bytes: [UInt8]) async throws(NetworkError) {
        guard self.isWriting.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw NetworkError(.concurrentOperation, "write called while another write is pending")
        }
        defer { self.isWriting.store(false, ordering: .releasing) }
        try await self.core.send(bytes, range: bytes.startIndex..<bytes.endIndex)
    }

    package var supportsImmediateWrites: Bool { true }

    package func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        guard self.isWriting.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return 0
        }
        defer { self.isWriting.store(false, ordering: .releasing) }
        return try self.core.sendImmediately(bytes)
    }

    package func close() {
        self.core.close()
    }
}
#endif
