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
        let task = Task {
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

    /// Queues frames (or the close) behind everything queued before, and starts the writer.
    func enqueueWebSocket(_ outgoing: EngineSession.WebSocketOutgoing, generation: Int) {
        let start = self.state.withLock { state -> Bool in
            guard state.session.generation == generation else { return false }
            state.session.webSocketQueue.append(outgoing)
            guard !state.session.webSocketWriterActive else { return false }
            state.session.webSocketWriterActive = true
            return true
        }
        guard start else { return }
        let task = Task { await self.drainWebSocketQueue(generation: generation) }
        self.state.withLock { state in
            if state.session.generation == generation {
                state.session.webSocketWriterTask = task
            }
        }
    }

    private func drainWebSocketQueue(generation: Int) async {
        while true {
            let next = self.state.withLock { state -> (EngineSession.WebSocketOutgoing, (any WebSocketConnection)?)? in
                guard state.session.generation == generation, !state.session.webSocketQueue.isEmpty else {
                    if state.session.generation == generation {
                        state.session.webSocketWriterActive = false
                    }
                    return nil
                }
                return (state.session.webSocketQueue.removeFirst(), state.session.webSocket)
            }
            guard let (outgoing, webSocket) = next else { return }

            switch outgoing {
            case let .frames(frames, sendIndex):
                guard let webSocket else { continue }
                do {
                    for frame in frames {
                        switch frame {
                        case let .text(text): try await webSocket.send(.text(text))
                        case let .binary(bytes): try await webSocket.send(.binary(bytes))
                        }
                    }
                } catch {
                    self.drive(generation) { $0.webSocketFailed(reason: SocketEngine.webSocketClosedReason) }
                    continue
                }
                self.sendFinished(sendIndex, generation: generation)
            case .close:
                let closing = self.state.withLock { state -> (any WebSocketConnection)? in
                    guard state.session.generation == generation else { return nil }
                    defer {
                        state.session.webSocket = nil
                        state.session.webSocketTask?.cancel()
                        state.session.webSocketTask = nil
                    }
                    return state.session.webSocket
                }
                await closing?.close(code: 1000, reason: "")
            }
        }
    }
}
