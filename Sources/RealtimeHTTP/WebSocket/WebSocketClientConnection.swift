import HTTP1Codec
import RealtimeIO
import RealtimeSync
package import RealtimeTime
package import RealtimeTransport
package import WebSocketCodec

/// One open client WebSocket (RFC 6455) over a ``ByteStream``.
///
/// ``receive()`` returns whole messages; pings are answered inside it, and the close
/// handshake is completed there when the server closes. ``send(_:)`` and
/// ``send(contentsOf:)`` may be called from any task: frames (or batches of whole frames) are
/// written one at a time. ``close(code:reason:)`` sends a close frame, waits for the server's,
/// then closes the socket, all within ``closeTimeout`` (a frame still being written, behind
/// which the close frame waits, counts too).
///
/// ```swift
/// let connection = try await WebSocketClient().connect(to: url, options: WebSocketOptions())
/// try await connection.send(.text("hello"))
/// while let message = try await connection.receive() { ... }
/// ```
///
/// - Important: Unicast receive: one task at a time calls ``receive()``. Messages are read
///   from the socket only while someone waits in ``receive()`` (so pings are answered only
///   then too). Cancelling a task blocked in ``receive()`` or ``send(_:)`` closes the socket.
package final class WebSocketClientConnection: WebSocketConnection {
    private struct State {
        var machine: WebSocketConnectionStateMachine
        /// Tasks currently reading (0 or 1 in correct use).
        var readers = 0
        /// `close()` calls waiting for the reader to finish or step aside.
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    package let responseHeaders: HTTPHeaders
    /// The permessage-deflate parameters in effect, if compression was negotiated.
    package let compression: PerMessageDeflateParameters?
    /// The sub-protocol the server selected, if any.
    package let subprotocol: String?
    /// How long ``close(code:reason:)`` may take: sending the close frame and waiting for the
    /// server's.
    package let closeTimeout: TimeAmount

    private let stream: any ByteStream
    private let writer: WebSocketFrameWriter
    /// The connection's loop's timers (``closeTimeout``); tests may give a manual clock.
    private let timers: any TimerSource
    private let state: LockedValue<State>
    private static let readSize = 64 * 1024

    init(
        stream: any ByteStream, responseHeaders: HTTPHeaders, bufferedBytes: [UInt8],
        maxMessageSize: Int, compression: PerMessageDeflateParameters?, subprotocol: String?,
        closeTimeout: TimeAmount, eventLoop: EventLoop, timers: (any TimerSource)? = nil
    ) {
        self.stream = stream
        self.responseHeaders = responseHeaders
        self.compression = compression
        self.subprotocol = subprotocol
        self.closeTimeout = closeTimeout
        self.timers = timers ?? eventLoop
        var compressor: PerMessageDeflateCompressor?
        var decompressor: PerMessageDeflateDecompressor?
        if let compression {
            // zlib cannot produce raw streams with an 8-bit window; with 8 negotiated we send
            // uncompressed messages, which RFC 7692 §6.1 allows.
            if compression.clientMaxWindowBits >= 9 {
                compressor = PerMessageDeflateCompressor(
                    windowBits: compression.clientMaxWindowBits,
                    noContextTakeover: compression.clientNoContextTakeover)
            }
            decompressor = PerMessageDeflateDecompressor(noContextTakeover: compression.serverNoContextTakeover)
        }
        self.writer = WebSocketFrameWriter(stream: stream, compressor: compressor, eventLoop: eventLoop)
        var machine = WebSocketConnectionStateMachine(maxMessageSize: maxMessageSize, decompressor: decompressor)
        if !bufferedBytes.isEmpty { machine.bytesReceived(bufferedBytes) }
        self.state = LockedValue(State(machine: machine))
    }

    deinit {
        self.closeStream()
    }

    /// Closes the socket and cancels the write the frame writer may still run for a partial
    /// immediate send (it would fail on the closed stream anyway).
    private func closeStream() {
        self.writer.close()
        self.stream.close()
    }

    package var closeStatus: (code: UInt16, reason: String)? {
        self.state.withLock { $0.machine.closeStatus }
    }

    // MARK: Sending

    package func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        if let error = self.state.withLock({ $0.machine.sendError() }) { throw error }
        do {
            try await self.writer.send(message)
        } catch {
            throw Task.isCancelled ? WebSocketError(.cancelled, "the sending task was cancelled") : WebSocketError(error)
        }
    }

    /// Sends `messages` as consecutive frames in one write (one system call for the batch).
    ///
    /// Frames stay whole: an automatic pong or a close frame goes before or after the batch.
    /// With permessage-deflate each message is compressed in order.
    /// - Throws: ``WebSocketError`` if the connection is closing or closed, or the write fails
    ///   (then any prefix of the batch may have reached the peer).
    package func send(contentsOf messages: [WebSocketMessage]) async throws(WebSocketError) {
        if let error = self.state.withLock({ $0.machine.sendError() }) { throw error }
        do {
            try await self.writer.send(contentsOf: messages)
        } catch {
            throw Task.isCancelled ? WebSocketError(.cancelled, "the sending task was cancelled") : WebSocketError(error)
        }
    }

    /// Sends `messages` as consecutive frames from the calling thread when no other send is in
    /// progress: one system call, no suspension, no wake-up of the event loop. Bytes the
    /// kernel does not take at once go out from the event loop, ahead of any later frame.
    ///
    /// - Returns: `false` when nothing was sent (another send holds the writer): use
    ///   ``send(contentsOf:)``.
    /// - Throws: ``WebSocketError`` if the connection is closing or closed, or the write
    ///   fails (the connection is then closed).
    package func sendImmediately(contentsOf messages: [WebSocketMessage]) throws(WebSocketError) -> Bool {
        if let error = self.state.withLock({ $0.machine.sendError() }) { throw error }
        do {
            return try self.writer.sendImmediately(contentsOf: messages)
        } catch {
            throw WebSocketError(error)
        }
    }

    /// Sends a ping (the pong is consumed by ``receive()``).
    package func ping(_ payload: [UInt8] = []) async throws(WebSocketError) {
        if let error = self.state.withLock({ $0.machine.sendError() }) { throw error }
        do {
            try await self.writer.sendControl(.ping, payload: Array(payload.prefix(125)))
        } catch {
            throw WebSocketError(error)
        }
    }

    // MARK: Receiving

    package func receive() async throws(WebSocketError) -> WebSocketMessage? {
        // `readLoop` counts this reader in its first critical section.
        defer { self.leaveReader() }
        return try await self.readLoop()
    }

    private func leaveReader() {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.readers -= 1
            let waiters = state.closeWaiters
            state.closeWaiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func readLoop() async throws(WebSocketError) -> WebSocketMessage? {
        var action = self.state.withLock { state in
            state.readers += 1
            return state.machine.nextReadAction()
        }
        while true {
            switch action {
            case .deliver(let message):
                return message
            case .sendPong(let payload):
                // A failed write surfaces on the next read.
                try? await self.writer.sendControl(.pong, payload: payload)
                action = self.state.withLock { $0.machine.nextReadAction() }
            case .readMore:
                // A cancelled read closes the stream itself (`ByteStream`'s contract): no second
                // cancellation handler here, which cost a status-record lock to add and remove
                // on every read.
                let result: Result<[UInt8], NetworkError>
                do throws(NetworkError) {
                    result = .success(try await self.stream.read(maxLength: Self.readSize))
                } catch {
                    result = .failure(error)
                }
                switch result {
                case .success(let bytes) where !bytes.isEmpty:
                    action = self.state.withLock { state in
                        state.machine.bytesReceived(bytes)
                        return state.machine.nextReadAction()
                    }
                case .success:
                    let error = self.state.withLock { $0.machine.streamEnded(nil, cancelled: Task.isCancelled) }
                    self.closeStream()
                    throw error
                case .failure(let networkError):
                    let error = self.state.withLock { $0.machine.streamEnded(networkError, cancelled: Task.isCancelled) }
                    self.closeStream()
                    if case .finished(nil) = self.state.withLock({ $0.machine.nextReadAction() }) { return nil }
                    throw error
                }
            case .echoCloseAndShutdown(let payload):
                try? await self.writer.sendControl(.close, payload: payload)
                self.closeStream()
                return nil
            case .shutdown:
                self.closeStream()
                return nil
            case .failConnection(let closePayload, let error):
                if let closePayload {
                    try? await self.writer.sendControl(.close, payload: closePayload)
                }
                self.closeStream()
                throw error
            case .finished(let error):
                if let error { throw error }
                return nil
            }
        }
    }

    // MARK: Closing

    package func close(code: UInt16, reason: String) async {
        let action = self.state.withLock { $0.machine.closeRequested(code: code, reason: reason) }
        let stream = self.stream
        // Bound the close: sending the close frame (behind a write the peer does not take) and
        // the wait for the server's. A timer of the connection's loop closes the stream at the
        // deadline, and the closing task's cancellation closes it at once: a reader or writer
        // elsewhere may be waiting for the peer, and only closing the stream ends that wait.
        let timer = self.timers.schedule(at: self.timers.now + self.closeTimeout) { stream.close() }
        let handshakeEnded = await withTaskCancellationHandler { () async -> Bool in
            if case .sendClose(let payload) = action {
                do throws(NetworkError) {
                    try await self.writer.sendControl(.close, payload: payload)
                } catch {
                    timer.cancel()
                    self.closeStream()
                    _ = self.state.withLock { $0.machine.streamEnded(error, cancelled: false) }
                    return false
                }
            }
            await self.waitForReadSideToFinish()
            return true
        } onCancel: {
            stream.close()
        }
        timer.cancel()
        guard handshakeEnded else {
            await self.writer.waitForPendingWrite()
            return
        }
        self.state.withLock { $0.machine.closeTimedOut() }
        self.closeStream()
        // The writer's task, if one runs, ends now that the stream is closed.
        await self.writer.waitForPendingWrite()
    }

    /// Reads (discarding messages) until the close handshake ends, or lets the task already
    /// in ``receive()`` do it and waits.
    private func waitForReadSideToFinish() async {
        while true {
            enum Step { case done, read, wait }
            let step = self.state.withLock { state -> Step in
                if state.machine.isFinished { return .done }
                return state.readers == 0 ? .read : .wait
            }
            switch step {
            case .done:
                return
            case .read:
                do {
                    while try await self.receive() != nil {}
                } catch {}
                return
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.state.withLock { state -> Bool in
                        if state.machine.isFinished || state.readers == 0 { return true }
                        state.closeWaiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }
}
