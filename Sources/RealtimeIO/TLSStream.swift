#if canImport(CRealtimeOpenSSL) && !REALTIME_NO_NATIVE_STACK
import CRealtimeOpenSSL
import RealtimeSync

/// A TLS client ``ByteStream`` (TLS 1.2 and 1.3, OpenSSL 3) over a non-blocking ``TCPStream``.
///
/// OpenSSL works on memory BIOs: the stream moves ciphertext between them and the socket, so the
/// socket keeps its event-loop waits, cancellation and `MSG_NOSIGNAL`. `SSL_ERROR_WANT_READ`
/// becomes "read the socket (suspending on `EAGAIN`) and feed the bytes in"; produced ciphertext
/// is flushed to the socket after every OpenSSL call. Verification follows ``TLSConfiguration``:
/// chain against the system store plus the extra roots, and host name (RFC 6125 via
/// `SSL_set1_host`, or the IP address for IP literals) by default.
///
/// - Important: All OpenSSL calls for one connection run under this stream's one lock (OpenSSL
///   objects are not thread-safe); socket waits happen outside it. One reader and one writer may
///   run concurrently; their ciphertext output is serialized through a single flusher, so records
///   never interleave on the wire, and `write` returns only once its records reached the kernel.
///   A peer that closes without `close_notify` is reported as EOF (as most HTTP clients do;
///   framing above TLS detects truncation). Cancelling a task suspended in `read`/`write` closes
///   the stream and fails that call with `.cancelled`.
///
/// - Important: The stream owns the one task it may start: the flusher that sends the records
///   of a ``writeImmediately(_:)`` the kernel did not take at once. It holds the socket and the
///   state, not the stream; ``close()`` and `deinit` cancel it, so a stream dropped while its
///   peer stops reading closes its socket instead of living on in that task.
package final class TLSStream: ByteStream {
    private struct State {
        /// Ciphertext waiting to be sent, in order. Bounded: a writer adds one chunk
        /// (``TLSStream/writeChunkSize`` of plaintext) and waits for delivery; an immediate
        /// write adds nothing (it only runs when the queue is empty); the reader's protocol
        /// output (alerts, KeyUpdate answers: a peer can ask for them while it reads nothing)
        /// makes the reader wait for delivery once more than
        /// ``TLSStream/maximumQueuedReaderOutput`` bytes are queued.
        var outbound: [UInt8] = []
        /// Whether a task is currently sending `outbound` to the socket.
        var isFlushing = false
        /// The tasks waiting for another task's flush to finish (see `flush(as:)`): at most
        /// one writer and one reader.
        var flushWaiters: [FlushWaiter] = []
        var isReading = false
        var isWriting = false
        var receivedEOF = false
        var isClosed = false
        /// The flusher task a `writeImmediately` started, while it runs (its handle is stored
        /// just after it starts; `id` tells a late store from the current task).
        var flusherTask: (id: UInt64, task: Task<Void, Never>?)?
        var nextFlusherID: UInt64 = 0
    }

    /// Who waits for a flush to finish.
    private enum Role: Equatable {
        case reader
        case writer
    }

    private struct FlushWaiter {
        var role: Role
        var continuation: UnsafeContinuation<NetworkError?, Never>
    }

    /// Result of one `SSL_read` under the lock.
    private enum ReadStep {
        case data([UInt8])
        case endOfStream
        case needInput
        case failed(NetworkError)
    }

    private static let maximumRecordPlaintext = 16 * 1024
    /// A write encrypts at most this much before sending, so a huge write never doubles in memory.
    private static let writeChunkSize = 64 * 1024
    /// The ciphertext the reader may leave queued behind another task's flush before it waits
    /// for that flush too (backpressure on a peer that makes us answer while it reads nothing).
    private static let maximumQueuedReaderOutput = 64 * 1024

    private let transport: TCPStream

    /// The loop the stream lives on (its TCP socket's).
    package var eventLoop: EventLoop { self.transport.eventLoop }
    private let session: TLSSession
    private let state = LockedValue(State())
    /// Socket-read buffer for ciphertext (the transport's own, unused by anyone else). Only the
    /// single active reader (or the handshake, before any reader exists) touches it;
    /// `State.isReading` enforces that.
    private let readBuffer: ReadBuffer
    /// Decrypted bytes land here before being copied out (one record at most); only used by
    /// the single reader, under the lock.
    private let plaintext = ReadBuffer(byteCount: TLSStream.maximumRecordPlaintext)
    /// The ALPN protocol the server selected, if any (RFC 7301).
    package let negotiatedApplicationProtocol: String?

    private init(transport: TCPStream, session: TLSSession, readBuffer: ReadBuffer, alpn: String?) {
        self.transport = transport
        self.session = session
        self.readBuffer = readBuffer
        self.negotiatedApplicationProtocol = alpn
    }

    deinit {
        // Cancelled first: closing the socket would also end it, as a failure.
        self.state.withLock { $0.flusherTask?.task }?.cancel()
        self.transport.close()
    }

    // MARK: Handshake

    /// Runs the client handshake over `transport` (whose connect deadline stays armed until the
    /// handshake ends) and returns the ready stream.
    ///
    /// - Throws: `.certificateExpired`, `.hostnameMismatch`, `.certificateUntrusted` for
    ///   verification failures, `.tlsHandshakeFailed` for any other handshake failure,
    ///   `.connectTimedOut` / `.cancelled` from the transport. The transport is closed on failure.
    static func handshake(
        over transport: TCPStream, host: String,
        configuration: TLSConfiguration
    ) async throws(NetworkError) -> TLSStream {
        do throws(NetworkError) {
            let context = try TLSContext.forConfiguration(configuration)
            let session = try TLSSession(context: context)
            try Self.configureIdentity(session.ssl, host: host, configuration: configuration)
            let readBuffer = transport.readBuffer
            var outbound: [UInt8] = []
            while true {
                ERR_clear_error()
                let result = SSL_do_handshake(session.ssl)
                let code = SSL_get_error(session.ssl, result)
                let failure: NetworkError? =
                    result == 1
                    ? nil
                    : Self.handshakeFailure(
                        session.ssl, code: code,
                        host: configuration.serverName ?? host)
                session.drainOutput(into: &outbound)
                if !outbound.isEmpty {
                    try await transport.core.send(outbound, range: outbound.indices)
                    outbound.removeAll(keepingCapacity: true)
                }
                if result == 1 { break }
                if let failure { throw failure }
                if code == SSL_ERROR_WANT_READ {
                    let count = try await transport.core.receive(into: readBuffer.bytes)
                    guard count > 0 else {
                        throw NetworkError(.tlsHandshakeFailed, "the server closed the connection during the TLS handshake")
                    }
                    _ = session.feedInput(UnsafeRawBufferPointer(rebasing: readBuffer.bytes[0..<count]))
                }
            }
            transport.core.disarmConnectDeadline()
            return TLSStream(
                transport: transport, session: session, readBuffer: readBuffer,
                alpn: Self.selectedProtocol(session.ssl))
        } catch {
            transport.close()
            throw error
        }
    }

    private static func configureIdentity(
        _ ssl: OpaquePointer, host: String,
        configuration: TLSConfiguration
    ) throws(NetworkError) {
        var name = configuration.serverName ?? host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        // An empty name would make SSL_set1_host clear the check; a NUL would truncate it.
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw NetworkError(.tlsHandshakeFailed, "invalid TLS server name \"\(name)\"")
        }
        let isIPLiteral = SocketAddress(numericHost: name, port: 0) != nil
        // RFC 6066 §3: SNI carries host names only, never IP literals.
        if !isIPLiteral, crealtime_SSL_set_tlsext_host_name(ssl, name) != 1 {
            throw NetworkError(.tlsHandshakeFailed, "cannot set SNI host name \"\(name)\": \(TLSErrors.drain())")
        }
        guard configuration.verification == .fullVerification else { return }
        if isIPLiteral {
            guard let parameters = SSL_get0_param(ssl), X509_VERIFY_PARAM_set1_ip_asc(parameters, name) == 1 else {
                throw NetworkError(.tlsHandshakeFailed, "cannot verify against IP \(name): \(TLSErrors.drain())")
            }
        } else {
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            guard SSL_set1_host(ssl, name) == 1 else {
                throw NetworkError(.tlsHandshakeFailed, "cannot verify host name \"\(name)\": \(TLSErrors.drain())")
            }
        }
    }

    private static func selectedProtocol(_ ssl: OpaquePointer) -> String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    // MARK: ByteStream

    package func read(maxLength: Int) async throws(NetworkError) -> [UInt8] {
        try self.claim(reading: true)
        defer { self.state.withLock { $0.isReading = false } }
        // SSL_read returns at most one record's plaintext (RFC 8446 §5.1: 2^14 bytes).
        let capacity = max(1, min(maxLength, Self.maximumRecordPlaintext))
        while true {
            let step = self.state.withLock { state -> ReadStep in
                if state.isClosed { return .failed(NetworkError(.closed, "the connection was closed")) }
                ERR_clear_error()
                // SSL_read lands in the reused plaintext buffer; the caller gets an exact-size copy.
                let result = SSL_read(self.session.ssl, self.plaintext.bytes.baseAddress, Int32(capacity))
                let code = result > 0 ? SSL_ERROR_NONE : SSL_get_error(self.session.ssl, result)
                self.session.drainOutput(into: &state.outbound)
                switch code {
                case SSL_ERROR_NONE:
                    return .data([UInt8](UnsafeRawBufferPointer(rebasing: self.plaintext.bytes[0..<Int(result)])))
                case SSL_ERROR_ZERO_RETURN: return .endOfStream
                case SSL_ERROR_WANT_READ: return state.receivedEOF ? .endOfStream : .needInput
                default:
                    return .failed(NetworkError(.connectionReset, "TLS error while reading: \(TLSErrors.drain())"))
                }
            }
            try await self.flush(as: .reader)
            switch step {
            case .data(let bytes): return bytes
            case .endOfStream: return []
            case .failed(let error): throw error
            case .needInput:
                let count = try await self.transport.core.receive(into: self.readBuffer.bytes)
                let fed = self.state.withLock { state -> Bool in
                    if count == 0 {
                        // EOF without close_notify: reported as EOF (many servers skip it).
                        state.receivedEOF = true
                        return true
                    }
                    guard !state.isClosed else { return false }
                    return self.session.feedInput(UnsafeRawBufferPointer(rebasing: self.readBuffer.bytes[0..<count]))
                }
                if !fed { throw NetworkError(.closed, "the connection was closed") }
            }
        }
    }

    package func write(_ bytes: [UInt8]) async throws(NetworkError) {
        try self.claim(reading: false)
        defer { self.state.withLock { $0.isWriting = false } }
        let chunkSize = Self.writeChunkSize
        var offset = 0
        while offset < bytes.count {
            let length = min(chunkSize, bytes.count - offset)
            let written = try self.state.withLock { state throws(NetworkError) -> Int in
                if state.isClosed { throw NetworkError(.closed, "the connection was closed") }
                ERR_clear_error()
                let result = bytes.withUnsafeBytes { raw in
                    SSL_write(self.session.ssl, raw.baseAddress! + offset, Int32(length))
                }
                if result <= 0 {
                    let code = SSL_get_error(self.session.ssl, result)
                    throw NetworkError(.connectionReset, "TLS error while writing (\(code)): \(TLSErrors.drain())")
                }
                self.session.drainOutput(into: &state.outbound)
                return Int(result)
            }
            offset += written
            try await self.flush(as: .writer)
        }
    }

    package var supportsImmediateWrites: Bool { true }

    /// Encrypts `bytes` and sends the records on the calling thread when no other write or
    /// flush is in progress and the records fit one chunk; records the kernel does not take
    /// at once are sent by a flusher task on the event loop (a write or read behind them waits
    /// for it, so records stay in order), which the stream owns (see ``close()``). See
    /// ``ByteStream/writeImmediately(_:)``.
    ///
    /// - Returns: `bytes.count` (all plaintext was encrypted), or 0 when another write or
    ///   flush is in progress or `bytes` is larger than one chunk.
    package func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int {
        guard !bytes.isEmpty, bytes.count <= Self.writeChunkSize else { return 0 }
        let records = try self.state.withLock { state throws(NetworkError) -> [UInt8]? in
            if state.isClosed { throw NetworkError(.closed, "the connection was closed") }
            guard !state.isWriting, !state.isFlushing, state.outbound.isEmpty else { return nil }
            ERR_clear_error()
            let result = bytes.withUnsafeBytes { raw in
                SSL_write(self.session.ssl, raw.baseAddress!, Int32(raw.count))
            }
            if result <= 0 {
                let code = SSL_get_error(self.session.ssl, result)
                throw NetworkError(.connectionReset, "TLS error while writing (\(code)): \(TLSErrors.drain())")
            }
            var records: [UInt8] = []
            self.session.drainOutput(into: &records)
            state.isFlushing = true
            return records
        }
        guard let records else { return 0 }
        let sent: Int
        do {
            sent = try self.transport.core.sendImmediately(records)
        } catch {
            Self.abandonFlushing(error, state: self.state)
            throw error
        }
        let rest = self.state.withLock { state -> [UInt8]? in
            guard sent == records.count, state.outbound.isEmpty else {
                // Ahead of anything the reader queued meanwhile.
                let rest = Array(records[sent...]) + state.outbound
                state.outbound = []
                return rest
            }
            state.isFlushing = false
            return nil
        }
        if let rest { self.startFlusherTask(rest) }
        return bytes.count
    }

    /// Starts the task that sends `rest` as the flusher (the caller set `isFlushing`) and
    /// records it as this stream's flusher task.
    private func startFlusherTask(_ rest: [UInt8]) {
        let id = self.state.withLock { state -> UInt64 in
            let id = state.nextFlusherID
            state.nextFlusherID &+= 1
            state.flusherTask = (id, nil)
            return id
        }
        // The task holds the state and the socket, not the stream: the stream's deinit
        // cancels it.
        let state = self.state
        let transport = self.transport
        // On the connection's loop: the socket's readiness resumes it in place.
        let task = Task(executorPreference: transport.core.loop) {
            do throws(NetworkError) {
                try await Self.sendAsFlusher(rest, state: state, core: transport.core)
            } catch {
                // A failed send leaves a torn record: nothing more can be sent (not even
                // close_notify), so the stream closes.
                state.withLock { $0.isClosed = true }
                transport.close()
            }
            state.withLock { state in
                if state.flusherTask?.id == id { state.flusherTask = nil }
            }
        }
        let cancelNow = self.state.withLock { state -> Bool in
            // Stored only while it runs: a task that already ended cleared its entry.
            if state.flusherTask?.id == id { state.flusherTask?.task = task }
            return state.isClosed
        }
        if cancelNow { task.cancel() }
    }

    /// The flusher task of a partial immediate write, while it runs (for tests).
    var runningFlusherTask: Task<Void, Never>? { self.state.withLock { $0.flusherTask?.task } }

    /// Gives up the flusher role after a failed send and passes the error to the waiting tasks.
    private static func abandonFlushing(_ error: NetworkError, state: LockedValue<State>) {
        let waiters = state.withLock { state in
            state.isFlushing = false
            defer { state.flushWaiters = [] }
            return state.flushWaiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: error) }
    }

    /// Closes the stream: sends `close_notify` when it can, closes the socket and cancels the
    /// flusher task if one runs. Idempotent.
    package func close() {
        // Best effort close_notify (RFC 8446 §6.1) when no flush is in progress (never interleave
        // it into a record being sent); then close the socket.
        let (notify, flusher) = self.state.withLock { state -> ([UInt8]?, Task<Void, Never>?) in
            guard !state.isClosed else { return (nil, state.flusherTask?.task) }
            state.isClosed = true
            guard !state.isFlushing else { return (nil, state.flusherTask?.task) }
            ERR_clear_error()
            _ = SSL_shutdown(self.session.ssl)
            ERR_clear_error()
            var bytes = state.outbound
            self.session.drainOutput(into: &bytes)
            state.outbound = []
            return (bytes, nil)
        }
        if let notify, !notify.isEmpty { self.transport.core.sendWithoutWaiting(notify) }
        self.transport.close()
        // Its send already fails on the closed socket; cancelling says it is not wanted.
        flusher?.cancel()
    }

    // MARK: Internals

    private func claim(reading: Bool) throws(NetworkError) {
        try self.state.withLock { state throws(NetworkError) in
            if state.isClosed { throw NetworkError(.closed, "the connection was closed") }
            if reading {
                if state.isReading { throw NetworkError(.concurrentOperation, "read called while another read is pending") }
                state.isReading = true
            } else {
                if state.isWriting { throw NetworkError(.concurrentOperation, "write called while another write is pending") }
                state.isWriting = true
            }
        }
    }

    /// Sends queued ciphertext. Exactly one task flushes at a time, sending until the queue is
    /// empty, so records never interleave on the wire.
    ///
    /// A task that finds another one flushing waits until that flusher has sent everything
    /// queued, including this task's bytes: always the writer (`write` returns only once the
    /// kernel took its records), the reader (whose output is only protocol housekeeping) only
    /// once more than ``maximumQueuedReaderOutput`` bytes are queued; below that it returns at
    /// once. Cancelling a waiting task closes the stream.
    private func flush(as role: Role) async throws(NetworkError) {
        enum Start {
            case idle
            case send([UInt8])
            case wait
        }
        var start: Start = self.state.withLock { state in
            guard !state.outbound.isEmpty else { return .idle }
            guard !state.isFlushing else {
                let wait = role == .writer || state.outbound.count > Self.maximumQueuedReaderOutput
                return wait ? .wait : .idle
            }
            state.isFlushing = true
            defer { state.outbound = [] }
            return .send(state.outbound)
        }
        if case .wait = start {
            try await self.waitForOtherFlusher(as: role)
            start = .idle
        }
        guard case .send(let first) = start else { return }
        try await Self.sendAsFlusher(first, state: self.state, core: self.transport.core)
    }

    /// The flusher's loop: sends `first`, then whatever was queued meanwhile, until the queue
    /// is empty; then gives up the flusher role and wakes the tasks waiting for delivery.
    /// The caller set `isFlushing`. Static, so the flusher task holds no stream.
    private static func sendAsFlusher(
        _ first: [UInt8], state: LockedValue<State>, core: SocketCore
    ) async throws(NetworkError) {
        var batch: [UInt8]? = first
        while let bytes = batch {
            do {
                try await core.send(bytes, range: bytes.indices)
            } catch {
                Self.abandonFlushing(error, state: state)
                throw error
            }
            var waiters: [FlushWaiter] = []
            batch = state.withLock { state in
                guard !state.outbound.isEmpty else {
                    state.isFlushing = false
                    waiters = state.flushWaiters
                    state.flushWaiters = []
                    return nil
                }
                defer { state.outbound = [] }
                return state.outbound
            }
            for waiter in waiters { waiter.continuation.resume(returning: nil) }
        }
    }

    /// Suspends until the task currently flushing has emptied the queue (or failed).
    private func waitForOtherFlusher(as role: Role) async throws(NetworkError) {
        let cancelled = NetworkError(.cancelled, "the task was cancelled; the connection was closed")
        let error: NetworkError? = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<NetworkError?, Never>) in
                let ready: NetworkError?? = self.state.withLock { state in
                    guard state.isFlushing else { return .some(nil) }
                    // Under the lock: a cancellation after this check finds the waiter listed.
                    if Task.isCancelled { return .some(cancelled) }
                    state.flushWaiters.append(FlushWaiter(role: role, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> FlushWaiter? in
                guard let index = state.flushWaiters.firstIndex(where: { $0.role == role }) else { return nil }
                return state.flushWaiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: cancelled)
            self.close()
        }
        if let error { throw error }
    }
}
#endif
