package import EngineIOProtocol
package import Foundation
package import RealtimeHTTP
import RealtimeTime

/// The WebSocket driver (engine.io-protocol v4, "WebSocket" and "Upgrade"): opens the
/// connection the machine asks for (direct or upgrade probe), feeds back what it receives, and
/// writes the machine's frames through one serialized send queue. Its handles (the connection,
/// its receive task, send queue and writer) are the attempt's
/// ``EngineConnectionAttempt/WebSocketHandles``.
package struct EngineWebSocketDriver: Sendable {
    /// The close reason when the WebSocket ends (upstream's wording).
    package static let closedReason = "Socket Disconnected"

    package let host: any EngineDriverHost

    package init(host: any EngineDriverHost) {
        self.host = host
    }

    /// The connection's options: the attempt's headers (with the sticky cookies), compression,
    /// TLS and proxy.
    package func options() -> WebSocketOptions {
        let options = self.host.requestOptions
        var webSocketOptions = WebSocketOptions(
            headers: options.headers(
                forWebSocket: true, sticky: self.host.stickyCookies,
                httpKeepsCookies: self.host.transports?.httpKeepsCookies ?? false),
            enableCompression: options.compress,
            tls: options.tls)
        webSocketOptions.proxy = options.proxy
        return webSocketOptions
    }

    /// The WebSocket URL, with `sid` for an upgrade.
    package func url(sid: String?) -> URL {
        self.host.requestOptions.webSocketURL(sid: sid)
    }

    /// The machine's ``EngineClientAction/openWebSocket(sid:)``: opens a WebSocket (direct or
    /// upgrade probe), then reports what it receives.
    package func start(sid: String?, generation: Int) {
        let host = self.host
        guard let transport = host.transports?.webSocket else {
            host.drive(generation) { $0.webSocketFailed(reason: "WebSocket is not available") }
            return
        }
        let url = self.url(sid: sid)
        let options = self.options()
        let task = EngineTask.start(on: host.eventLoop) {
            let webSocket: any WebSocketConnection
            do throws(WebSocketError) {
                webSocket = try await transport.connect(to: url, options: options)
            } catch {
                guard !Task.isCancelled else { return }
                host.drive(generation) { $0.webSocketFailed(reason: error.message) }
                return
            }
            let adopted = host.withAttempt { attempt -> Bool in
                guard attempt.generation == generation, !Task.isCancelled else { return false }
                attempt.webSocket.connection = webSocket
                return true
            }
            guard adopted else {
                await webSocket.close(code: 1000, reason: "")
                return
            }
            host.drive(generation) { $0.webSocketOpened(now: MonotonicInstant.now) }
            await self.receiveLoop(webSocket, generation: generation)
        }
        host.withAttempt { attempt in
            if attempt.generation == generation {
                attempt.webSocket.task = task
            } else {
                task.cancel()
            }
        }
    }

    private func receiveLoop(_ webSocket: any WebSocketConnection, generation: Int) async {
        let host = self.host
        // Whether the last message's input found reads held back (the host reads it in the
        // section that input took anyway; a paused host is asked again before each read).
        var mayBePaused = true
        while !Task.isCancelled {
            // Backpressure: no read while the consumer is too far behind.
            if mayBePaused, host.readsPaused { await host.waitUntilReadable() }
            guard !Task.isCancelled else { return }
            let message: WebSocketMessage?
            do {
                message = try await webSocket.receive()
            } catch {
                guard !Task.isCancelled else { return }
                host.drive(generation) { $0.webSocketFailed(reason: Self.closedReason) }
                return
            }
            guard !Task.isCancelled else { return }
            switch message {
            case .text(let text)? where text.utf8.first == UInt8(ascii: "{"):
                // A server error object (`EngineServerError`): upstream's
                // `checkAndHandleEngineError`, through the host.
                if case .message? = EngineServerError(text: text) {
                    host.deliverServerError(text, generation: generation)
                    return
                }
                mayBePaused = host.drive(generation) { $0.webSocketReceived(.text(text), now: MonotonicInstant.now) }
            case .text(let text)?:
                mayBePaused = host.drive(generation) { $0.webSocketReceived(.text(text), now: MonotonicInstant.now) }
            case .binary(let bytes)?:
                mayBePaused = host.drive(generation) { $0.webSocketReceived(.binary(bytes), now: MonotonicInstant.now) }
            case nil:
                host.drive(generation) { $0.webSocketFailed(reason: Self.closedReason) }
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
    ///   at a time (the host's action queue), so entries reach the queue in order; the queue
    ///   hands each batch to exactly one writer, in order, and completions of a batch run
    ///   before the writer asks for the next, so they keep the writes' order too.
    package func enqueue(_ entry: EngineWebSocketSendQueue.Entry, generation: Int) {
        let turn = self.host.withAttempt { attempt in Self.enqueue(entry, generation: generation, in: &attempt) }
        guard let turn else { return }
        self.write(turn, generation: generation)
    }

    /// Queues `entry` in the caller's critical section on the attempt (the host's lock held):
    /// the host's write path, when nothing else of the machine's is being performed, queues its
    /// frames in the section that wrote them into the machine. The returned turn, if any, is
    /// the caller's to write (``write(_:generation:)``) after the section.
    package static func enqueue(
        _ entry: EngineWebSocketSendQueue.Entry, generation: Int, in attempt: inout EngineConnectionAttempt
    ) -> WriterTurn? {
        guard attempt.generation == generation, let batch = attempt.webSocket.sendQueue.enqueue(entry) else {
            return nil
        }
        return WriterTurn(batch: batch, connection: attempt.webSocket.connection)
    }

    /// A batch the queue handed to this writer, with the connection to write it on, taken in
    /// the same critical section.
    package struct WriterTurn {
        var batch: EngineWebSocketSendQueue.Batch
        var connection: (any WebSocketConnection)?
    }

    /// The writer's loop on the calling thread: writes `turn`'s batch and every batch the queue
    /// hands out after it, until the queue is idle; moves to a task when the connection is busy.
    package func write(_ first: WriterTurn, generation: Int) {
        var turn = first
        while true {
            let batch = turn.batch
            guard !batch.closes, let webSocket = turn.connection, !batch.frames.isEmpty else {
                // A close (awaits the peer), or nothing to write here: the task path.
                self.startWriterTask(batch, generation: generation)
                return
            }
            let sent: Bool
            do {
                sent = try webSocket.sendImmediately(contentsOf: batch.frames.map(Self.message))
            } catch {
                self.writeFailed(generation: generation)
                return
            }
            guard sent else {
                self.startWriterTask(batch, generation: generation)
                return
            }
            // Completions while this writer still holds the queue: a later batch cannot report
            // its writes first. The next batch is taken in the same section.
            let next = self.host.sendFinished(
                batch.writeID, generation: generation,
                takingTurn: { attempt in
                    Self.nextTurn(generation: generation, in: &attempt)
                })
            guard let next else { return }
            turn = next
        }
    }

    /// The writer wrote its batch: the next one with the connection, or `nil` when the queue
    /// went idle.
    private func nextTurn(generation: Int) -> WriterTurn? {
        self.host.withAttempt { attempt in Self.nextTurn(generation: generation, in: &attempt) }
    }

    /// ``nextTurn(generation:)`` in the caller's critical section on the attempt.
    private static func nextTurn(generation: Int, in attempt: inout EngineConnectionAttempt) -> WriterTurn? {
        guard attempt.generation == generation, let batch = attempt.webSocket.sendQueue.written() else { return nil }
        return WriterTurn(batch: batch, connection: attempt.webSocket.connection)
    }

    /// Moves the writer to a task on the event loop, owned by the attempt (cancelled with it).
    private func startWriterTask(_ batch: EngineWebSocketSendQueue.Batch, generation: Int) {
        let task = EngineTask.start(on: host.eventLoop) { await self.writeAsync(batch, generation: generation) }
        self.host.withAttempt { attempt in
            // An attempt already gone: the task finds the generation changed and ends at once.
            if attempt.generation == generation { attempt.webSocket.writerTask = task }
        }
    }

    /// The writer's loop in a task: awaits the connection's frame writer for each batch; a
    /// closing batch writes its frames, then closes the WebSocket.
    private func writeAsync(_ first: EngineWebSocketSendQueue.Batch, generation: Int) async {
        var batch = first
        while true {
            let webSocket = self.host.withAttempt { attempt in
                attempt.generation == generation ? attempt.webSocket.connection : nil
            }
            if let webSocket, !batch.frames.isEmpty {
                do {
                    try await webSocket.send(contentsOf: batch.frames.map(Self.message))
                } catch {
                    self.writeFailed(generation: generation)
                    return
                }
                self.host.sendFinished(batch.writeID, generation: generation)
            }
            if batch.closes {
                let closing = self.host.withAttempt { attempt -> (any WebSocketConnection)? in
                    guard attempt.generation == generation else { return nil }
                    defer {
                        attempt.webSocket.connection = nil
                        attempt.webSocket.task?.cancel()
                        attempt.webSocket.task = nil
                    }
                    return attempt.webSocket.connection
                }
                _ = self.nextTurn(generation: generation)
                await closing?.close(code: 1000, reason: "")
                return
            }
            guard let next = self.nextTurn(generation: generation) else { return }
            batch = next.batch
        }
    }

    /// A write failed: nothing more goes out on this WebSocket; the machine hears of it.
    private func writeFailed(generation: Int) {
        self.host.withAttempt { attempt in
            if attempt.generation == generation { attempt.webSocket.sendQueue.fail() }
        }
        self.host.drive(generation) { $0.webSocketFailed(reason: Self.closedReason) }
    }

    static func message(_ frame: EngineWebSocketFrame) -> WebSocketMessage {
        switch frame {
        case .text(let text): return .text(text)
        case .binary(let bytes): return .binary(bytes)
        }
    }
}
