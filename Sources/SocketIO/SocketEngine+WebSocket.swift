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
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "sid", value: sid)]
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

    /// Queues frames (or the close) behind everything queued before, and wakes the writer.
    ///
    /// One writer task per attempt sends everything queued, in order; it waits on a
    /// continuation while the queue is empty, so a write to an idle connection costs a
    /// resumption, not a new task.
    func enqueueWebSocket(_ outgoing: EngineSession.WebSocketOutgoing, generation: Int) {
        enum Wake { case none, resume(CheckedContinuation<Void, Never>), start }
        let wake = self.state.withLock { state -> Wake in
            guard state.session.generation == generation else { return .none }
            state.session.webSocketQueue.append(outgoing)
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
    /// while the queue is empty. `nil` when the attempt is over.
    private func nextWebSocketBatch(generation: Int) async -> ([EngineSession.WebSocketOutgoing], (any WebSocketConnection)?)? {
        while true {
            enum Step { case batch([EngineSession.WebSocketOutgoing], (any WebSocketConnection)?), stop, wait }
            let take = { (state: inout State) -> Step in
                guard state.session.generation == generation, !Task.isCancelled else { return .stop }
                guard !state.session.webSocketQueue.isEmpty else {
                    guard state.session.webSocketWriterDraining else { return .wait }
                    state.session.webSocketWriterActive = false
                    state.session.webSocketWriterTask = nil
                    return .stop
                }
                // The whole queue at once: no `removeFirst()` per entry under bursts.
                let batch = state.session.webSocketQueue
                state.session.webSocketQueue = []
                return .batch(batch, state.session.webSocket)
            }
            switch self.state.withLock(take) {
            case let .batch(batch, webSocket):
                return (batch, webSocket)
            case .stop:
                return nil
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.state.withLock { state -> Bool in
                        guard state.session.generation == generation, !Task.isCancelled,
                              !state.session.webSocketWriterDraining,
                              state.session.webSocketQueue.isEmpty else { return true }
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
        while let (batch, webSocket) = await self.nextWebSocketBatch(generation: generation) {
            var pending: Int?
            messages.removeAll(keepingCapacity: true)
            for outgoing in batch {
                switch outgoing {
                case let .frames(frames, sendIndex):
                    guard let webSocket else { continue }
                    for frame in frames {
                        switch frame {
                        case let .text(text): messages.append(.text(text))
                        case let .binary(bytes): messages.append(.binary(bytes))
                        }
                    }
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
