import Dispatch
import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP

/// The WebSocket transport (engine.io-protocol v4, "WebSocket" and "Upgrade"): opening,
/// receiving and a serialized send queue for the frames the machine asks for.
extension SocketEngine {
    /// The close reason when the WebSocket ends (upstream's wording).
    static let webSocketClosedReason = "Socket Disconnected"

    func webSocketOptions() -> WebSocketOptions {
        let compress = self.compress
        return WebSocketOptions(headers: self.requestHeaders(forWebSocket: true),
                                enableCompression: compress,
                                tls: self.tlsConfiguration())
    }

    func webSocketURL(sid: String?) -> URL {
        let base = self.state.withLock { $0.urlWebSocket }
        guard let sid, !sid.isEmpty,
              var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return base }
        // Appended as text: re-setting `queryItems` would decode and re-encode the
        // connectParams (a `%2B` would go out as a raw `+`).
        components.percentEncodedQuery = EngineQueryEncoding.appending("sid", sid, to: components.percentEncodedQuery)
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
                guard state.session.generation == generation, !Task.isCancelled else { return false }
                state.session.webSocket = webSocket
                return true
            }
            guard adopted else {
                await webSocket.close(code: 1000, reason: "")
                return
            }
            self.drive(generation) { $0.webSocketOpened(now: ContinuousClock.now) }
            await self.receiveLoop(webSocket, generation: generation)
        }
        self.state.withLock { state in
            if state.session.generation == generation {
                state.session.webSocketTask = task
            } else {
                task.cancel()
            }
        }
    }

    private func receiveLoop(_ webSocket: any WebSocketConnection, generation: Int) async {
        while !Task.isCancelled {
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
            case let .text(text)? where text.utf8.first == UInt8(ascii: "{"):
                // A server error object (no packet starts with `{`): upstream's
                // `checkAndHandleEngineError`, through `parseEngineMessage(_:)`.
                if case .serverError? = EngineMessageDisposition.serverError(in: text) {
                    self.parseEngineMessage(text)
                    return
                }
                self.drive(generation) { $0.webSocketReceived(.text(text), now: ContinuousClock.now) }
            case let .text(text)?:
                let isPing = text.first == "2" && text != "2probe"
                self.drive(generation) { $0.webSocketReceived(.text(text), now: ContinuousClock.now) }
                if isPing {
                    self.reportPings(1)
                }
            case let .binary(bytes)?:
                self.drive(generation) { $0.webSocketReceived(.binary(bytes), now: ContinuousClock.now) }
            case nil:
                self.drive(generation) { $0.webSocketFailed(reason: SocketEngine.webSocketClosedReason) }
                return
            }
        }
    }

    /// Sends frames (or the close) behind everything sent or queued before.
    ///
    /// - A lone write goes out right here, on the calling thread, when nothing is queued or
    ///   being sent (``WebSocketConnection/sendImmediately(contentsOf:)``: one system call, no
    ///   wake-up of the event loop): the common case of an emit from a handler.
    /// - Writes that follow within ``directSendSpacing`` of a direct send are a burst. Made on
    ///   the manager's `handleQueue` (a handler emitting in a loop) they wait in the queue and
    ///   go out together when the running handler returns, or at the latest after
    ///   ``deferredFlushLimit``, from ``flushDeferredWrites(generation:)``.
    /// - Everything else (the close, writes while the writer is busy, writes from other
    ///   threads) joins the queue of the attempt's one writer task, which sends all that is
    ///   queued in one write, in order. It waits on a continuation while the queue is empty,
    ///   so a queued write to an idle connection costs a resumption, not a new task.
    ///
    /// - Important: Called only while performing the machine's actions, which one thread does
    ///   at a time (``performQueuedActions()``), so writes reach this point in order. Every
    ///   sender (direct, deferred flush, writer task) first claims `webSocketSending` and sends
    ///   from the head of the queue, or with the queue empty, so none overtakes another.
    func enqueueWebSocket(_ outgoing: EngineSession.WebSocketOutgoing, generation: Int) {
        enum Plan { case none, direct(any WebSocketConnection, [EngineWebSocketFrame], Int?), deferFlush(DispatchQueue), wakeWriter }
        let now = ContinuousClock.now
        let plan = self.state.withLock { state -> Plan in
            guard state.session.generation == generation else { return .none }
            if case let .frames(frames, sendIndex) = outgoing, let webSocket = state.session.webSocket,
               !state.session.webSocketWriterDraining {
                let spaced = state.session.lastDirectSend.map { $0.duration(to: now) >= SocketEngine.directSendSpacing } ?? true
                if spaced, state.session.webSocketQueue.isEmpty, !state.session.webSocketSending {
                    state.session.webSocketSending = true
                    state.session.lastDirectSend = now
                    return .direct(webSocket, frames, sendIndex)
                }
                if let handleQueue = state.handleQueue, SocketEngine.isRunning(on: handleQueue) {
                    state.session.webSocketQueue.append(outgoing)
                    guard !state.session.deferredFlushPending else { return .none }
                    state.session.deferredFlushPending = true
                    return .deferFlush(handleQueue)
                }
            }
            state.session.webSocketQueue.append(outgoing)
            return .wakeWriter
        }
        switch plan {
        case .none:
            return
        case .wakeWriter:
            self.wakeWebSocketWriter(generation: generation)
        case let .deferFlush(handleQueue):
            handleQueue.async { self.flushDeferredWrites(generation: generation) }
            DispatchQueue.global().asyncAfter(deadline: .now() + SocketEngine.deferredFlushLimit) {
                self.flushDeferredWrites(generation: generation)
            }
        case let .direct(webSocket, frames, sendIndex):
            self.sendDirectly([.frames(frames, sendIndex: sendIndex)], on: webSocket, generation: generation)
        }
    }

    /// How long after a direct send further writes count as a burst (see ``enqueueWebSocket(_:generation:)``).
    static let directSendSpacing: Duration = .microseconds(100)
    /// The longest a burst's writes wait for the handler that made them to return.
    static let deferredFlushLimit: DispatchTimeInterval = .milliseconds(1)

    /// Marks each `handleQueue` with its own identity, so the engine can tell whether it runs on it.
    nonisolated(unsafe) static let handleQueueKey = DispatchSpecificKey<ObjectIdentifier>()

    static func isRunning(on queue: DispatchQueue) -> Bool {
        DispatchQueue.getSpecific(key: SocketEngine.handleQueueKey) == ObjectIdentifier(queue)
    }

    /// Sends the writes of a burst that waited in the queue, unless another sender has them.
    func flushDeferredWrites(generation: Int) {
        enum Plan { case none, send(any WebSocketConnection, [EngineSession.WebSocketOutgoing]), wakeWriter }
        let now = ContinuousClock.now
        let plan = self.state.withLock { state -> Plan in
            guard state.session.generation == generation, state.session.deferredFlushPending else { return .none }
            state.session.deferredFlushPending = false
            // A sender at work takes the queue when it is done.
            guard !state.session.webSocketQueue.isEmpty, !state.session.webSocketSending else { return .none }
            guard let webSocket = state.session.webSocket, !state.session.webSocketWriterDraining else { return .wakeWriter }
            // Frames up to a close (the writer task sends the close).
            let count = state.session.webSocketQueue.firstIndex {
                if case .close = $0 { true } else { false }
            } ?? state.session.webSocketQueue.count
            guard count > 0 else { return .wakeWriter }
            let batch = Array(state.session.webSocketQueue.prefix(count))
            state.session.webSocketQueue.removeFirst(count)
            state.session.webSocketSending = true
            state.session.lastDirectSend = now
            return .send(webSocket, batch)
        }
        switch plan {
        case .none:
            return
        case .wakeWriter:
            self.wakeWebSocketWriter(generation: generation)
        case let .send(webSocket, batch):
            self.sendDirectly(batch, on: webSocket, generation: generation)
        }
    }

    /// Sends `batch` (frames only) on the calling thread; the caller claimed `webSocketSending`.
    private func sendDirectly(_ batch: [EngineSession.WebSocketOutgoing], on webSocket: any WebSocketConnection,
                              generation: Int) {
        var messages: [WebSocketMessage] = []
        var lastSendIndex: Int?
        for outgoing in batch {
            guard case let .frames(frames, sendIndex) = outgoing else { continue }
            messages += frames.map(SocketEngine.webSocketMessage)
            if let sendIndex { lastSendIndex = sendIndex }
        }
        let sent: Bool
        do {
            sent = try webSocket.sendImmediately(contentsOf: messages)
        } catch {
            self.finishDirectSend(requeueing: [], generation: generation)
            self.drive(generation) { $0.webSocketFailed(reason: SocketEngine.webSocketClosedReason) }
            return
        }
        // Completions run while this send still holds the claim: a sender after it cannot
        // report its own writes first, so completions keep the writes' order.
        if sent {
            self.sendFinished(lastSendIndex, generation: generation)
        }
        self.finishDirectSend(requeueing: sent ? [] : batch, generation: generation)
    }

    /// Ends a direct send; `unsent` (the connection's writer was busy) goes back to the head
    /// of the queue. Wakes the writer for what waits in the queue, unless a deferred flush
    /// will take it.
    private func finishDirectSend(requeueing unsent: [EngineSession.WebSocketOutgoing], generation: Int) {
        let wake = self.state.withLock { state -> Bool in
            guard state.session.generation == generation else { return false }
            state.session.webSocketSending = false
            state.session.webSocketQueue.insert(contentsOf: unsent, at: 0)
            return !state.session.webSocketQueue.isEmpty && (!unsent.isEmpty || !state.session.deferredFlushPending)
        }
        if wake {
            self.wakeWebSocketWriter(generation: generation)
        }
    }

    static func webSocketMessage(_ frame: EngineWebSocketFrame) -> WebSocketMessage {
        switch frame {
        case let .text(text): return .text(text)
        case let .binary(bytes): return .binary(bytes)
        }
    }

    /// Resumes the waiting writer task, or starts it.
    private func wakeWebSocketWriter(generation: Int) {
        enum Wake { case none, resume(CheckedContinuation<Void, Never>), start }
        let wake = self.state.withLock { state -> Wake in
            guard state.session.generation == generation else { return .none }
            if let waiter = state.session.webSocketWriterWaiter {
                state.session.webSocketWriterWaiter = nil
                return .resume(waiter)
            }
            guard !state.session.webSocketWriterActive else { return .none }
            state.session.webSocketWriterActive = true
            return .start
        }
        switch wake {
        case .none:
            return
        case let .resume(waiter):
            waiter.resume()
        case .start:
            let task = SocketEngine.engineTask { await self.runWebSocketWriter(generation: generation) }
            self.state.withLock { state in
                if state.session.generation == generation {
                    state.session.webSocketWriterTask = task
                } else {
                    task.cancel()
                }
            }
        }
    }

    /// Takes everything queued; waits (without a task switch when work is already queued)
    /// while the queue is empty or a direct send is being written. `nil` when the attempt is
    /// over.
    ///
    /// - Parameter holdsBatch: `true` while the writer is sending a batch it took: the next
    ///   call first gives up the `webSocketSending` claim that came with it.
    private func nextWebSocketBatch(generation: Int,
                                    holdsBatch: inout Bool) async -> ([EngineSession.WebSocketOutgoing], (any WebSocketConnection)?)? {
        enum Step { case batch([EngineSession.WebSocketOutgoing], (any WebSocketConnection)?), stop, wait }
        while true {
            let step = self.state.withLock { state -> Step in
                guard state.session.generation == generation, !Task.isCancelled else { return .stop }
                if holdsBatch {
                    state.session.webSocketSending = false
                    holdsBatch = false
                }
                // A direct send in progress wakes this writer when it ends.
                guard !state.session.webSocketSending else { return .wait }
                guard !state.session.webSocketQueue.isEmpty else {
                    guard state.session.webSocketWriterDraining else { return .wait }
                    state.session.webSocketWriterActive = false
                    state.session.webSocketWriterTask = nil
                    return .stop
                }
                // The whole queue at once: no `removeFirst()` per entry under bursts.
                let batch = state.session.webSocketQueue
                state.session.webSocketQueue = []
                state.session.webSocketSending = true
                holdsBatch = true
                return .batch(batch, state.session.webSocket)
            }
            switch step {
            case let .batch(batch, webSocket):
                return (batch, webSocket)
            case .stop:
                return nil
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.state.withLock { state -> Bool in
                        guard state.session.generation == generation, !Task.isCancelled else { return true }
                        let mustWait = state.session.webSocketSending
                            || (state.session.webSocketQueue.isEmpty && !state.session.webSocketWriterDraining)
                        guard mustWait else { return true }
                        state.session.webSocketWriterWaiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Sends each batch the queue hands over: the frames of all its sends go out in one
    /// ``WebSocketConnection/send(contentsOf:)`` (one write for a burst of emits), and a close
    /// goes after the frames queued before it.
    private func runWebSocketWriter(generation: Int) async {
        var messages: [WebSocketMessage] = []
        var holdsBatch = false
        while let (batch, webSocket) = await self.nextWebSocketBatch(generation: generation, holdsBatch: &holdsBatch) {
            var pending: Int?
            messages.removeAll(keepingCapacity: true)
            for outgoing in batch {
                switch outgoing {
                case let .frames(frames, sendIndex):
                    guard let webSocket else { continue }
                    messages += frames.map(SocketEngine.webSocketMessage)
                    if let sendIndex { pending = sendIndex }
                case .close:
                    guard await self.flushWebSocket(&messages, to: webSocket, generation: generation) else { return }
                    self.sendFinished(pending, generation: generation)
                    pending = nil
                    let closing = self.state.withLock { state -> (any WebSocketConnection)? in
                        guard state.session.generation == generation else { return nil }
                        defer {
                            state.session.webSocket = nil
                            state.session.webSocketTask?.cancel()
                            state.session.webSocketTask = nil
                            state.session.webSocketWriterActive = false
                            state.session.webSocketWriterTask = nil
                            state.session.webSocketSending = false
                        }
                        return state.session.webSocket
                    }
                    await closing?.close(code: 1000, reason: "")
                    return
                }
            }
            guard await self.flushWebSocket(&messages, to: webSocket, generation: generation) else { return }
            self.sendFinished(pending, generation: generation)
        }
    }

    /// Writes the collected messages at once and empties `messages`; `false` (after reporting
    /// the failure) if the write failed.
    private func flushWebSocket(_ messages: inout [WebSocketMessage], to webSocket: (any WebSocketConnection)?,
                                generation: Int) async -> Bool {
        guard let webSocket, !messages.isEmpty else { return true }
        do {
            try await webSocket.send(contentsOf: messages)
        } catch {
            self.drive(generation) { $0.webSocketFailed(reason: SocketEngine.webSocketClosedReason) }
            return false
        }
        messages.removeAll(keepingCapacity: true)
        return true
    }
}
