import RealtimeTime

#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
import Glibc
import CRealtimeOpenSSL
import RealtimeSync

/// A non-blocking TCP socket registered with the ``EventLoop``: the descriptor, the two waiting
/// continuations (one reader, one writer) and the readiness epochs, all under one lock.
///
/// Every syscall is attempted on the caller's thread first; only `EAGAIN` makes the caller store
/// a continuation and suspend until the loop reports a readiness edge (see ``EventLoop``).
///
/// ## Closing while a syscall runs
/// A descriptor number is reused by the kernel as soon as it is closed, so closing it while
/// another thread is inside `recv`/`send` on it could make that thread touch an unrelated
/// socket. Every syscall therefore runs between ``beginSyscall(_:)`` and ``endSyscall()``, which
/// count calls in flight; ``shutdown(readError:writeError:)`` deregisters at once but leaves the
/// actual `close(2)` to the last call in flight.
///
/// - Important: The owner serializes use: at most one task reads and one task writes at a time
///   (``TCPStream`` and ``TLSStream`` enforce it). Waiting is cancellable: cancelling the waiting
///   task closes the socket and fails the wait with `.cancelled`.
final class SocketCore: EventLoopHandler {
    enum Direction: Sendable { case read, write }

    private struct State {
        var fileDescriptor: Int32
        var registrationID: UInt64 = 0
        /// Set once closed: the errors pending and future operations fail with.
        var closeErrors: (read: NetworkError, write: NetworkError)?
        var descriptorClosed = false
        var syscallsInFlight = 0
        var readEpoch: UInt64 = 0
        var writeEpoch: UInt64 = 0
        /// The read epoch seen before the last `recv` that returned fewer bytes than asked:
        /// that read emptied the receive queue. Until an edge moves ``readEpoch`` past it, no
        /// byte has arrived since, so the next read waits for the edge without a `recv` that
        /// could only answer `EAGAIN` (see ``SocketCore/receive(into:)``).
        var readDrainedAtEpoch: UInt64?
        /// An edge reported the peer's FIN, a reset or an error (`EPOLLRDHUP`, `EPOLLHUP`,
        /// `EPOLLERR`). A short read may have consumed the data before a FIN whose edge came
        /// earlier: the next `recv` answers `0` without another edge, so from now on every
        /// read asks the kernel.
        var peerHangUpSeen = false
        var readWaiter: UnsafeContinuation<NetworkError?, Never>?
        var writeWaiter: UnsafeContinuation<NetworkError?, Never>?
        var connectTimer: EventLoop.ScheduledTimer?
        var connectDeadlinePassed = false

        func failure(for direction: Direction) -> NetworkError? {
            if let closeErrors {
                return direction == .read ? closeErrors.read : closeErrors.write
            }
            return nil
        }
    }

    let remoteAddress: SocketAddress
    private let state: LockedValue<State>
    /// The loop the socket is registered with: its readiness, its connect deadline and the
    /// tasks of the layers above that prefer a loop are this one's.
    let loop: EventLoop

    /// Wraps and registers a connected or connecting non-blocking descriptor.
    /// - Throws: `.eventLoopShutDown` if the loop is shut down, `.systemError` if registration
    ///   fails (the descriptor is closed then).
    init(fileDescriptor: Int32, remoteAddress: SocketAddress, loop: EventLoop) throws(NetworkError) {
        self.remoteAddress = remoteAddress
        self.loop = loop
        self.state = LockedValue(State(fileDescriptor: fileDescriptor))
        do {
            let id = try loop.register(fileDescriptor: fileDescriptor, handler: self)
            self.state.withLock { $0.registrationID = id }
        } catch {
            Glibc.close(fileDescriptor)
            throw error
        }
    }

    // MARK: Loop callbacks

    func handleReadiness(_ events: UInt32) {
        let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue
        let writable = EPOLLOUT.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue
        let (reader, writer) = self.state.withLock { state in
            var reader: UnsafeContinuation<NetworkError?, Never>?
            var writer: UnsafeContinuation<NetworkError?, Never>?
            if events & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                state.peerHangUpSeen = true
            }
            if events & readable != 0 {
                state.readEpoch &+= 1
                reader = state.readWaiter
                state.readWaiter = nil
            }
            if events & writable != 0 {
                state.writeEpoch &+= 1
                writer = state.writeWaiter
                state.writeWaiter = nil
            }
            return (reader, writer)
        }
        reader?.resume(returning: nil)
        writer?.resume(returning: nil)
    }

    func loopDidShutDown(_ error: NetworkError) {
        self.shutdown(readError: error, writeError: error)
    }

    // MARK: Syscall bracketing

    /// Marks a syscall in flight and returns the descriptor and the direction's current epoch.
    /// - Throws: the close error if the socket is closed.
    func beginSyscall(_ direction: Direction) throws(NetworkError) -> (descriptor: Int32, epoch: UInt64) {
        try self.state.withLock { state throws(NetworkError) in
            if let error = state.failure(for: direction) { throw error }
            state.syscallsInFlight += 1
            return (state.fileDescriptor, direction == .read ? state.readEpoch : state.writeEpoch)
        }
    }

    /// Like ``beginSyscall(_:)`` for a read, unless the last read emptied the receive queue
    /// and no readiness edge came since: then no syscall begins and the returned epoch is the
    /// one to wait past (`drained` is `true`).
    private func beginRead() throws(NetworkError) -> (descriptor: Int32, epoch: UInt64, drained: Bool) {
        try self.state.withLock { state throws(NetworkError) in
            if let error = state.failure(for: .read) { throw error }
            let drained = !state.peerHangUpSeen && state.readDrainedAtEpoch == state.readEpoch
            state.readDrainedAtEpoch = nil
            if !drained { state.syscallsInFlight += 1 }
            return (state.fileDescriptor, state.readEpoch, drained)
        }
    }

    /// Ends a syscall begun with ``beginSyscall(_:)``; closes the descriptor if a close waited.
    ///
    /// - Parameter readDrainedAt: for a read that emptied the receive queue (a short read),
    ///   the epoch its ``beginRead()`` saw.
    func endSyscall(readDrainedAt: UInt64? = nil) {
        let descriptorToClose: Int32? = self.state.withLock { state in
            if let readDrainedAt { state.readDrainedAtEpoch = readDrainedAt }
            state.syscallsInFlight -= 1
            if state.syscallsInFlight == 0, state.closeErrors != nil, !state.descriptorClosed {
                state.descriptorClosed = true
                return state.fileDescriptor
            }
            return nil
        }
        if let descriptorToClose { Glibc.close(descriptorToClose) }
    }

    // MARK: Waiting

    /// Suspends until the direction's epoch moves past `epoch` (a readiness edge), the socket is
    /// closed, the connect deadline passes, or the task is cancelled.
    ///
    /// - Throws: `.cancelled` (and closes the socket) if the task is cancelled; the close error if
    ///   the socket is closed; `.connectTimedOut` if the connect deadline passed.
    func waitUntilReady(_ direction: Direction, since epoch: UInt64) async throws(NetworkError) {
        let error: NetworkError? = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<NetworkError?, Never>) in
                let immediate: NetworkError?? = self.state.withLock { state in
                    if let error = state.failure(for: direction) { return .some(error) }
                    switch direction {
                    case .read:
                        if state.readEpoch != epoch { return .some(nil) }
                        if state.readWaiter != nil {
                            return .some(NetworkError(.concurrentOperation, "two tasks wait to read the same socket"))
                        }
                        state.readWaiter = continuation
                    case .write:
                        if state.writeEpoch != epoch { return .some(nil) }
                        if state.writeWaiter != nil {
                            return .some(NetworkError(.concurrentOperation, "two tasks wait to write the same socket"))
                        }
                        state.writeWaiter = continuation
                    }
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let cancelled = NetworkError(.cancelled, "the task was cancelled; the connection was closed")
            let closed = NetworkError(.closed, "the connection was closed because another task was cancelled")
            switch direction {
            case .read: self.shutdown(readError: cancelled, writeError: closed)
            case .write: self.shutdown(readError: closed, writeError: cancelled)
            }
        }
        if let error {
            if Task.isCancelled, error.kind != .cancelled {
                throw NetworkError(.cancelled, "the task was cancelled; the connection was closed")
            }
            throw error
        }
    }

    // MARK: Connect deadline

    /// Starts a timer that fails current and future waits with `.connectTimedOut` at `deadline`.
    func armConnectDeadline(_ deadline: MonotonicInstant) {
        // A strong capture, not `[weak self]`: the timer is cancelled (and its closure released)
        // by disarmConnectDeadline() or shutdown(), so it cannot outlive the connect, and it
        // spares every connection a weak-reference side table. Such a side table outlived its
        // socket's pooled keep-alive connection in LeakSanitizer's view (docs/RELIABILITY.md).
        let timer = self.loop.scheduleTimer(at: deadline) { self.connectDeadlinePassed() }
        let stale: EventLoop.ScheduledTimer? = self.state.withLock { state in
            let stale = state.connectTimer
            state.connectTimer = timer
            return stale
        }
        stale?.cancel()
    }

    /// Stops the connect deadline once the connection (and TLS handshake) is established.
    func disarmConnectDeadline() {
        let timer: EventLoop.ScheduledTimer? = self.state.withLock { state in
            let timer = state.connectTimer
            state.connectTimer = nil
            return timer
        }
        timer?.cancel()
    }

    private func connectDeadlinePassed() {
        let address = self.remoteAddress.description
        let error = NetworkError(.connectTimedOut, "connecting to \(address) did not complete before the deadline")
        self.shutdown(readError: error, writeError: error)
    }

    // MARK: Closing

    /// Closes the socket: deregisters it, fails pending and future operations with the given
    /// errors, and closes the descriptor (now, or when the last syscall in flight ends).
    /// Idempotent: only the first call has an effect.
    func shutdown(readError: NetworkError, writeError: NetworkError) {
        let taken = self.state.withLock {
            state -> (
                UnsafeContinuation<NetworkError?, Never>?,
                UnsafeContinuation<NetworkError?, Never>?,
                EventLoop.ScheduledTimer?
            )? in
            guard state.closeErrors == nil else { return nil }
            state.closeErrors = (readError, writeError)
            // Deregister under the lock so no concurrent endSyscall can close (and the kernel
            // reuse) the descriptor number before epoll_ctl(DEL) ran on it.
            self.loop.deregister(fileDescriptor: state.fileDescriptor, id: state.registrationID)
            if state.syscallsInFlight == 0 {
                state.descriptorClosed = true
                Glibc.close(state.fileDescriptor)
            }
            let taken = (state.readWaiter, state.writeWaiter, state.connectTimer)
            state.readWaiter = nil
            state.writeWaiter = nil
            state.connectTimer = nil
            return taken
        }
        guard let (reader, writer, timer) = taken else { return }
        timer?.cancel()
        reader?.resume(returning: readError)
        writer?.resume(returning: writeError)
    }

    /// Closes with `.closed` for both directions.
    func close() {
        let error = NetworkError(.closed, "the connection was closed")
        self.shutdown(readError: error, writeError: error)
    }

    var isClosed: Bool { self.state.withLock { $0.closeErrors != nil } }
}

// MARK: - Syscalls

extension SocketCore {
    /// Reads into caller-owned memory that stays valid across suspension.
    ///
    /// A `recv` that returns fewer bytes than asked has emptied the receive queue. The
    /// descriptor is edge-triggered, so any byte that arrives afterwards brings an edge: until
    /// one does, the next read waits for it instead of asking the kernel first (saving a
    /// `recv` that answers `EAGAIN` after every message; swift-nio stops reading at a short
    /// read for the same reason). A byte that arrived during the short `recv` moved the epoch,
    /// so the next read asks the kernel. A FIN is the exception: a short read can take the
    /// data and the FIN that the same (earlier) edge announced, and the `0` that follows
    /// brings no edge; so once an edge reported the peer's hang-up, reads always ask.
    /// - Returns: the number of bytes read; `0` at EOF.
    func receive(into buffer: UnsafeMutableRawBufferPointer) async throws(NetworkError) -> Int {
        while true {
            let (descriptor, epoch, drained) = try self.beginRead()
            if drained {
                try await self.waitUntilReady(.read, since: epoch)
                continue
            }
            let result = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            let errorCode = result < 0 ? errno : 0
            self.endSyscall(readDrainedAt: result > 0 && result < buffer.count ? epoch : nil)
            switch errorCode {
            case 0: return result
            case EAGAIN, EWOULDBLOCK: try await self.waitUntilReady(.read, since: epoch)
            case EINTR: continue
            default: throw SystemErrno.streamError(errorCode, operation: "read")
            }
        }
    }

    /// Writes every byte of `bytes[range]`, waiting for buffer space as needed.
    func send(_ bytes: [UInt8], range: Range<Int>) async throws(NetworkError) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let (sent, full) = try self.sendUntilFull(bytes, range: offset..<range.upperBound)
            offset += sent
            if let full { try await self.waitUntilReady(.write, since: full) }
        }
    }

    /// Sends as much of `bytes` as the kernel takes right now, without waiting.
    /// - Returns: the number of bytes sent (fewer than `bytes.count` once the send buffer is full).
    func sendImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int {
        try self.sendUntilFull(bytes, range: bytes.indices).sent
    }

    /// `send(2)` until `bytes[range]` is out or the send buffer is full.
    /// - Returns: the bytes sent, and the write epoch seen when the buffer was full (`nil`
    ///   when everything went out), for ``waitUntilReady(_:since:)``.
    private func sendUntilFull(_ bytes: [UInt8], range: Range<Int>) throws(NetworkError) -> (sent: Int, full: UInt64?) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let (descriptor, epoch) = try self.beginSyscall(.write)
            let result = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + offset, range.upperBound - offset, Int32(MSG_NOSIGNAL))
            }
            let errorCode = result < 0 ? errno : 0
            self.endSyscall()
            switch errorCode {
            case 0: offset += result
            case EAGAIN, EWOULDBLOCK: return (offset - range.lowerBound, epoch)
            case EINTR: continue
            default: throw SystemErrno.streamError(errorCode, operation: "write")
            }
        }
        return (offset - range.lowerBound, nil)
    }

    /// Sends what the kernel takes right now, without waiting (best effort, e.g. TLS
    /// `close_notify` just before closing).
    func sendWithoutWaiting(_ bytes: [UInt8]) {
        guard let (descriptor, _) = try? self.beginSyscall(.write) else { return }
        _ = bytes.withUnsafeBytes { raw in Glibc.send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
        self.endSyscall()
    }

    /// Completes a non-blocking `connect(2)` that returned `EINPROGRESS`.
    func finishConnect() async throws(NetworkError) {
        while true {
            let (descriptor, epoch) = try self.beginSyscall(.write)
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            let optionResult = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length)
            var connectErrno: Int32 = 0
            if optionResult == 0 && socketError == 0 {
                let result = self.remoteAddress.withSocketAddress { Glibc.connect(descriptor, $0, $1) }
                connectErrno = result == 0 ? 0 : errno
            } else {
                connectErrno = optionResult == 0 ? socketError : errno
            }
            self.endSyscall()
            switch connectErrno {
            case 0, EISCONN: return
            case EALREADY, EINPROGRESS, EINTR: try await self.waitUntilReady(.write, since: epoch)
            default: throw SystemErrno.connectError(connectErrno, address: self.remoteAddress.description)
            }
        }
    }
}
#endif
