import RealtimeIO
import RealtimeSync
import WebSocketCodec

/// Writes the frames of one client connection, one frame or one batch of whole frames at a
/// time (RFC 6455 §5.1: client frames masked with a fresh random key each).
///
/// Every write holds an ``AsyncSerialLock`` from encoding to the end of the write, so frames
/// from concurrent senders (the user, automatic pongs, the close handshake) never interleave,
/// and permessage-deflate's compression context follows wire order.
///
/// - Important: The writer owns the one task it may start (the rest of a partial immediate
///   write, ``sendImmediately(contentsOf:)``): it keeps its handle while it runs, ``close()``
///   and `deinit` cancel it, and ``waitForPendingWrite()`` awaits it. The task holds the
///   stream and the lock, not the writer. Waiting for the lock is cancellable: a send
///   cancelled while another holds the writer fails with `.cancelled` and writes nothing.
final class WebSocketFrameWriter: Sendable {
    private struct State {
        /// The task writing the rest of a partial immediate write, while it runs. At most one:
        /// it holds `lock` until it ends. `id` tells a handle stored late (after its task
        /// already ended) from the current one.
        var pendingWrite: (id: UInt64, task: Task<Void, Never>?)?
        var nextPendingWriteID: UInt64 = 0
        var closed = false
    }

    private let stream: any ByteStream
    private let lock = AsyncSerialLock()
    private let state = LockedValue(State())
    /// Used only while `lock` is held.
    private let compressor: PerMessageDeflateCompressor?
    /// The stream's loop: the pending write's task prefers it.
    private let eventLoop: EventLoop

    init(stream: any ByteStream, compressor: PerMessageDeflateCompressor?, eventLoop: EventLoop) {
        self.stream = stream
        self.compressor = compressor
        self.eventLoop = eventLoop
    }

    deinit {
        self.state.withLock { $0.pendingWrite?.task }?.cancel()
    }

    // MARK: Lifetime of the pending write

    /// Cancels the task writing the rest of a partial immediate write, if one runs (cancelling
    /// a write closes the stream: a torn frame ends the connection anyway); later partial
    /// writes are cancelled as they start. Idempotent. The owner closes the stream.
    func close() {
        let task = self.state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            return state.pendingWrite?.task
        }
        task?.cancel()
    }

    /// Returns once no task started by this writer runs (at once when none does).
    func waitForPendingWrite() async {
        while let task = self.state.withLock({ $0.pendingWrite?.task }) {
            await task.value
        }
    }

    /// Whether a task started by this writer still runs (for tests).
    var hasPendingWrite: Bool { self.state.withLock { $0.pendingWrite != nil } }

    /// Takes the lock for a send.
    /// - Throws: `.cancelled` when the task is cancelled while another send holds the writer.
    private func acquire() async throws(NetworkError) {
        do {
            try await self.lock.lock()
        } catch {
            throw NetworkError(.cancelled, "the sending task was cancelled while waiting for the writer")
        }
    }

    /// A fresh masking key from the system's cryptographic generator (RFC 6455 §5.3), drawn
    /// from a buffered block of its output so a frame costs no system call.
    private static func randomMaskingKey() -> WebSocketMaskingKey {
        let value = WebSocketMaskingKeySource.shared.next()
        return WebSocketMaskingKey(
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Sends a data message as one frame, compressed when permessage-deflate is on.
    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        try await self.acquire()
        defer { self.lock.unlock() }
        var frame: [UInt8] = []
        frame.reserveCapacity(Self.encodedCapacity(message))
        self.encode(message, into: &frame)
        try await self.write(frame)
    }

    /// Sends data messages as consecutive frames (one per message, in order) with one write:
    /// one system call for a burst instead of one per frame.
    ///
    /// The lock is held from encoding the first frame to the end of the write, so a pong or
    /// close frame goes before or after the whole batch, never inside a frame, and the
    /// compression context follows wire order (RFC 7692 §7.2.1).
    func send(contentsOf messages: [WebSocketMessage]) async throws(NetworkError) {
        guard !messages.isEmpty else { return }
        try await self.acquire()
        defer { self.lock.unlock() }
        try await self.write(self.encodeFrames(messages))
    }

    /// Sends `messages` as consecutive frames on the calling thread when the writer is free
    /// and the stream takes bytes without waiting (see ``ByteStream/writeImmediately(_:)``).
    ///
    /// Bytes the kernel does not take at once are written by a task on the event loop that
    /// keeps the writer's lock until they are out, so frames sent later queue behind them. The
    /// writer owns that task (see ``close()``); at most one runs at a time.
    ///
    /// - Returns: `true` once the frames are encoded and written or being written; `false`
    ///   when nothing was done (the writer is busy, or the stream has no immediate writes):
    ///   send them with ``send(contentsOf:)``.
    /// - Throws: the stream's error; the stream is then closed.
    func sendImmediately(contentsOf messages: [WebSocketMessage]) throws(NetworkError) -> Bool {
        guard !messages.isEmpty else { return true }
        guard self.stream.supportsImmediateWrites, self.lock.tryLock() else { return false }
        let frames = self.encodeFrames(messages)
        // From here the frames are committed (masking keys drawn, compression context
        // advanced): what the stream does not take now is written by the task below.
        let written: Int
        do {
            written = try self.stream.writeImmediately(frames)
        } catch {
            self.lock.unlock()
            self.stream.close()
            throw error
        }
        guard written < frames.count else {
            self.lock.unlock()
            return true
        }
        self.startPendingWrite(Array(frames[written...]))
        return true
    }

    /// Starts the task that writes `rest` and then releases the lock (held by the caller),
    /// and records it as this writer's pending write.
    private func startPendingWrite(_ rest: [UInt8]) {
        let id = self.state.withLock { state -> UInt64 in
            let id = state.nextPendingWriteID
            state.nextPendingWriteID &+= 1
            state.pendingWrite = (id, nil)
            return id
        }
        // The task holds what it needs, not the writer: a dropped connection's writer goes
        // away at once, and its deinit cancels the task.
        let stream = self.stream
        let lock = self.lock
        let state = self.state
        let finishWrite: @concurrent @Sendable () async -> Void = {
            do throws(NetworkError) {
                try await stream.write(rest)
            } catch {
                stream.close()
            }
            state.withLock { state in
                if state.pendingWrite?.id == id { state.pendingWrite = nil }
            }
            lock.unlock()
        }
        // On the stream's event loop where there is one (its readiness resumes it in place).
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        let task = Task(executorPreference: self.eventLoop, operation: finishWrite)
        #else
        let task = Task(operation: finishWrite)
        #endif
        let cancelNow = self.state.withLock { state -> Bool in
            // Stored only while it runs: a task that already ended cleared its entry.
            if state.pendingWrite?.id == id { state.pendingWrite?.task = task }
            return state.closed
        }
        if cancelNow { task.cancel() }
    }

    /// The frames of `messages`, one per message, in order, in one buffer. Call with the
    /// lock held: it draws masking keys and advances the compression context.
    private func encodeFrames(_ messages: [WebSocketMessage]) -> [UInt8] {
        var frames: [UInt8] = []
        var capacity = 0
        for message in messages { capacity += Self.encodedCapacity(message) }
        frames.reserveCapacity(capacity)
        for message in messages { self.encode(message, into: &frames) }
        return frames
    }

    /// An upper bound of an uncompressed frame's size: payload plus the longest header
    /// (2 + 8 length bytes + 4 mask bytes, RFC 6455 §5.2).
    private static func encodedCapacity(_ message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count + 14
        case .binary(let bytes): bytes.count + 14
        }
    }

    private func encode(_ message: WebSocketMessage, into output: inout [UInt8]) {
        switch message {
        case .text(let text):
            // Native strings are contiguous UTF-8: `withUTF8` borrows them without a copy.
            var text = text
            text.withUTF8 { self.encodeData(opcode: .text, payload: UnsafeRawBufferPointer($0), into: &output) }
        case .binary(let bytes):
            bytes.withUnsafeBytes { self.encodeData(opcode: .binary, payload: $0, into: &output) }
        }
    }

    /// Sends a control frame (ping, pong, close); `payload` must be at most 125 bytes.
    func sendControl(_ opcode: WebSocketOpcode, payload: [UInt8]) async throws(NetworkError) {
        try await self.acquire()
        defer { self.lock.unlock() }
        let frame = WebSocketFrameEncoder.encode(opcode: opcode, payload: payload, maskingKey: Self.randomMaskingKey())
        try await self.write(frame)
    }

    private func encodeData(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        if let compressor = self.compressor {
            let compressed = compressor.compress(payload)
            Self.reserveGeometrically(&output, adding: compressed.count + 14)
            compressed.withUnsafeBytes {
                WebSocketFrameEncoder.encode(
                    opcode: opcode, payload: $0, rsv1: true,
                    maskingKey: Self.randomMaskingKey(), into: &output)
            }
        } else {
            WebSocketFrameEncoder.encode(
                opcode: opcode, payload: payload,
                maskingKey: Self.randomMaskingKey(), into: &output)
        }
    }

    /// Makes room for `count` more bytes, doubling when it grows: the encoder reserves the
    /// exact size of its frame, which would copy the buffer once per frame of a batch.
    private static func reserveGeometrically(_ output: inout [UInt8], adding count: Int) {
        let needed = output.count + count
        if output.capacity < needed { output.reserveCapacity(max(needed, output.capacity * 2)) }
    }

    /// Writes, closing the stream if the task is cancelled mid-frame (a torn frame would
    /// corrupt the connection anyway).
    private func write(_ bytes: [UInt8]) async throws(NetworkError) {
        let stream = self.stream
        let result: Result<Void, NetworkError> = await withTaskCancellationHandler {
            do throws(NetworkError) {
                try await stream.write(bytes)
                return .success(())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            stream.close()
        }
        try result.get()
    }
}
