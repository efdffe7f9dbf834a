import Dispatch
import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeTime

/// The WebSocket transport (engine.io-protocol v4, "WebSocket" and "Upgrade"): opening,
/// receiving and a serialized send queue for the frames the machine asks for.
extension SocketEngine {
    /// The close reason when the WebSocket ends (upstream's wording).
    static let webSocketClosedReason = "Socket Disconnected"

    func webSocketOptions() -> WebSocketOptions {
        let compress = self.state.withLock { $0.requestOptions.compress }
        var options = WebSocketOptions(
            headers: self.requestHeaders(forWebSocket: true),
            enableCompression: compress,
            tls: self.tlsConfiguration())
        options.proxy = self.proxyConfiguration()
        return options
    }

    func webSocketURL(sid: String?) -> URL {
        let base = self.state.withLock { $0.requestOptions.urlWebSocket }
        guard let sid, !sid.isEmpty,
            var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
        else { return base }
        // Engine.IO's rule (`EngineQuery`), appended as text: re-setting `queryItems` would
        // decode and re-encode the connectParams (a `%2B` would go out as a raw `+`).
        components.percentEncodedQuery = EngineQuery.sessionPrefix(
            base: components.percentEncodedQuery ?? "", transport: .webSocket, sid: sid)
        return components.url ?? base
    }

    /// Opens a WebSocket (direct or upgrade probe), then reports what it receives.
    func startWebSocket(sid: String?, generation: Int) {
        guard let transport = self.transports?.webSocket else {
            self.drive(generation) { $0.webSocketFailed(reason: "WebSocket is not available") }
            return
        }
        let url = self.webSocketURL(sid: sid)
        let options = self.webSocketOptions()
        let task = SocketEngine.engineTask {
            let webSocket: any WebSocketConnection
            do throws(WebSocketError) {
                webSocket = try await transport.connect(to: url, options: options)
            } catch {
                guard !Task.isCancelled else { return }
                self.drive(generation) { $0.webSocketFailed(reason: error.message) }
                return
            }
            let adopted = self.state.withLock { state -> Bool in
                guard state.attempt.generation == generation, !Task.isCancelled else { return false }
                state.attempt.webSocket.connection = webSocket
                return true
            }
            guard adopted else {
                await webSocket.close(code: 1000, reason: "")
                return
            }
            self.drive(generation) { $0.webSocketOpened(now: MonotonicInstant.now) }
            await self.receiveLoop(webSocket, generation: generation)
        }
        self.state.withLock { state in
            if state.attempt.generation == generation {
                state.attempt.webSocket.task = task
            } else {
                task.cancel()
            }
        }
    }

    private func receiveLoop(_ webSocket: any WebSocketConnection, generation: Int) async {
        while !Task.isCancelled {
            // Backpressure: no read while the manager's handleQueue is too far behind.
            await self.readGate.waitUntilOpen()
            guard !Task.isCancelled else { return }
            let message: WebSocketMessage?
            do {
                message = try await webSocket.receive()
            } catch {
                guard !Task.isCancelled else { return }
                self.drive(generation) { $0.webSocketFailed(reason: SocketEngine.webSocketClosedReason) }
                return
            }
            guard !Task.isCancelled else { return }
            switch message {
            case .text(let text)? where text.utf8.first == UInt8(ascii: "{"):
                // A server error object (`EngineServerError`): upstream's
                // `checkAndHandleEngineError`, through `parseEngineMessage(_:)`.
                if case .message? = EngineServerError(text: text) {
                    self.deliverServerError(text, generation: generation)
                    return
                }
                self.drive(generation) { $0.webSocketReceived(.text(text), now: MonotonicInstant.now) }
            case .text(let text)?:
                self.drive(generation) { $0.webSocketReceived(.text(text), now: MonotonicInstant.now) }
            case .binary(let bytes)?:
                self.drive(generation) { $0.webSocketReceived(.binary(bytes), now: MonotonicInstant.now) }
            case nil:
                self.drive(generation) { $0.webSocketFailed(reason: SocketEngine.webSocketClosedReason) }
                return
            }
        }
    }

    /// Sends frames (or the close) behind everything sent or queued before, through the
    /// attempt's ``EngineWebSocketSendQueue``: one queue, one writer, one flush per batch.
    ///
    /// When no write is in progress the caller becomes the writer and writes right here, on
    /// its own thread (``WebSocketConnection/sendImmediately(contentsOf:)``: one system call,
    /// no wake-up of the event loop; the common case of an emit from a handler). Writes made
    /// meanwhile (by other threads, or by the event loop) wait in the queue, and the writer
    /// sends them all in its next flush, so a burst costs one write per batch instead of one
    /// per emit. When the connection's own frame writer is busy (the rest of a large write, a
    /// pong or close frame it sends itself) the writer hands its batch to a task on the event
    /// loop that awaits the frame writer, and keeps the writer role there.
    ///
    /// - Important: Called only while performing the machine's actions, which one thread does
    ///   at a time (``performQueuedActions()``), so entries reach the queue in order; the queue
    ///   hands each batch to exactly one writer, in order, and completions of a batch run
    ///   before the writer asks for the next, so they keep the writes' order too.
    func enqueueWebSocket(_ entry: EngineWebSocketSendQueue.Entry, generation: Int) {
        let batch = self.state.withLock { state -> EngineWebSocketSendQueue.Batch? in
            guard state.attempt.generation == generation else { return nil }
            return state.attempt.webSocket.sendQueue.enqueue(entry)
        }
        guard let batch else { return }
        self.writeWebSocket(batch, generation: generation)
    }

    /// The writer's loop on the calling thread: writes `batch` and every batch the queue hands
    /// out after it, until the queue is idle; moves to a task when the connection is busy.
    private func writeWebSocket(_ first: EngineWebSocketSendQueue.Batch, generation: Int) {
        var batch = first
        while true {
            let webSocket = self.state.withLock { state in
                state.attempt.generation == generation ? state.attempt.webSocket.connection : nil
            }
            guard !batch.closes, let webSocket, !batch.frames.isEmpty else {
                // A close (awaits the peer), or nothing to write here: the task path.
                self.startWriterTask(batch, generation: generation)
                return
            }
            let sent: Bool
            do {
                sent = try webSocket.sendImmediately(contentsOf: batch.frames.map(SocketEngine.webSocketMessage))
            } catch {
                self.webSocketWriteFailed(generation: generation)
                return
            }
            guard sent else {
                self.startWriterTask(batch, generation: generation)
                return
            }
            // Completions while this writer still holds the queue: a later batch cannot report
            // its writes first.
            self.sendFinished(batch.writeID, generation: generation)
            guard let next = self.nextWebSocketBatch(generation: generation) else { return }
            batch = next
        }
    }

    /// Moves the writer to a task on the event loop, owned by the attempt (cancelled with it).
    private func startWriterTask(_ batch: EngineWebSocketSendQueue.Batch, generation: Int) {
        let task = SocketEngine.engineTask { await self.writeWebSocketAsync(batch, generation: generation) }
        self.state.withLock { state in
            // An attempt already gone: the task finds the generation changed and ends at once.
            if state.attempt.generation == generation { state.attempt.webSocket.writerTask = task }
        }
    }

    /// The writer's loop in a task: awaits the connection's frame writer for each batch; a
    /// closing batch writes its frames, then closes the WebSocket.
    private func writeWebSocketAsync(_ first: EngineWebSocketSendQueue.Batch, generation: Int) async {
        var batch = first
        while true {
            let webSocket = self.state.withLock { state in
                state.attempt.generation == generation ? state.attempt.webSocket.connection : nil
            }
            if let webSocket, !batch.frames.isEmpty {
                do {
                    try await webSocket.send(contentsOf: batch.frames.map(SocketEngine.webSocketMessage))
                } catch {
                    self.webSocketWriteFailed(generation: generation)
                    return
                }
                self.sendFinished(batch.writeID, generation: generation)
            }
            if batch.closes {
                let closing = self.state.withLock { state -> (any WebSocketConnection)? in
                    guard state.attempt.generation == generation else { return nil }
                    defer {
                        state.attempt.webSocket.connection = nil
                        state.attempt.webSocket.task?.cancel()
                        state.attempt.webSocket.task = nil
                    }
                    return state.attempt.webSocket.connection
                }
                _ = self.nextWebSocketBatch(generation: generation)
                await closing?.close(code: 1000, reason: "")
                return
            }
            guard let next = self.nextWebSocketBatch(generation: generation) else { return }
            batch = next
        }
    }

    /// The writer wrote its batch: the next one, or `nil` when the queue went idle.
    private func nextWebSocketBatch(generation: Int) -> EngineWebSocketSendQueue.Batch? {
        self.state.withLock { state in
            guard state.attempt.generation == generation else { return nil }
            return state.attempt.webSocket.sendQueue.written()
        }
    }

    /// A write failed: nothing more goes out on this WebSocket; the machine hears of it.
    private func webSocketWriteFailed(generation: Int) {
        self.state.withLock { state in
            if state.attempt.generation == generation { state.attempt.webSocket.sendQueue.fail() }
        }
        self.drive(generation) { $0.webSocketFailed(reason: SocketEngine.webSocketClosedReason) }
    }

    static func webSocketMessage(_ frame: EngineWebSocketFrame) -> WebSocketMessage {
        switch frame {
        case .text(let text): return .text(text)
        case .binary(let bytes): return .binary(bytes)
        }
    }
}
