import Foundation
import HTTP1Codec
import RealtimeHTTP

/// The WebSocket transport (Engine.IO v4 protocol, "WebSocket" and "Upgrade"): a direct
/// WebSocket with `.forceWebsockets(true)`, or the probe-and-upgrade from polling.
extension SocketEngine {
    func webSocketOptions() -> WebSocketOptions {
        let compress = self.compress
        return WebSocketOptions(headers: self.requestHeaders(forWebSocket: true),
                                enableCompression: compress,
                                tls: self.tlsConfiguration())
    }

    func webSocketURL(withSid: Bool) -> URL {
        let (base, sid) = self.state.withLock { ($0.urlWebSocket, $0.sid) }
        guard withSid, !sid.isEmpty,
              var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return base }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "sid", value: sid)]
        return components.url ?? base
    }

    /// Keeps `webSocket` as the attempt's WebSocket, or closes it if the attempt ended.
    func adopt(_ webSocket: any WebSocketConnection, generation: Int) -> Bool {
        let adopted = self.state.withLock { state -> Bool in
            guard state.session.isCurrent(generation) else { return false }
            state.session.webSocket = webSocket
            return true
        }
        if !adopted {
            Task { await webSocket.close(code: 1000, reason: "") }
        }
        return adopted
    }

    /// `.forceWebsockets(true)`: the handshake arrives as the first WebSocket message.
    func openWebSocketDirectly(generation: Int, transport: any WebSocketTransport) async {
        let webSocket: any WebSocketConnection
        do {
            webSocket = try await transport.connect(to: self.webSocketURL(withSid: false), options: self.webSocketOptions())
        } catch {
            self.fail(generation: generation, reason: error.message)
            return
        }
        guard self.adopt(webSocket, generation: generation) else { return }

        do {
            guard case let .text(open)? = try await webSocket.receive(), open.first == "0",
                  self.applyHandshake(Substring(open).dropFirst(), generation: generation) else {
                self.fail(generation: generation, reason: "Invalid handshake")
                return
            }
        } catch {
            self.fail(generation: generation, reason: error.message)
            return
        }

        self.state.withLock { state in
            state.polling = false
            state.websocket = true
        }
        DefaultSocketLogger.Logger.log("Handshake complete over WebSocket", type: SocketEngine.logTypeIO)
        let client = self.client
        client?.engineDidOpen(reason: "Connect")

        let watchdog = Task { await self.runHeartbeatWatchdog(generation: generation) }
        self.own(watchdog, generation: generation)

        self.kickWriter()
        await self.receiveLoop(webSocket, generation: generation)
    }

    /// Probes a WebSocket on the polling session and switches to it: `2probe` / `3probe`,
    /// pause POSTs, send `5`, then send the queued packets over the WebSocket. On failure
    /// the engine stays on polling.
    func upgrade(generation: Int, transport: any WebSocketTransport, pollTask: Task<Void, Never>) async {
        let webSocket: any WebSocketConnection
        do {
            webSocket = try await transport.connect(to: self.webSocketURL(withSid: true), options: self.webSocketOptions())
        } catch {
            DefaultSocketLogger.Logger.log("WebSocket upgrade failed, staying on polling: \(error.message)",
                                           type: SocketEngine.logTypeIO)
            return
        }

        do {
            try await webSocket.send(.text("2probe"))
            guard case .text("3probe")? = try await webSocket.receive() else {
                throw WebSocketError(.protocolError, "Unexpected probe answer")
            }
        } catch {
            DefaultSocketLogger.Logger.log("WebSocket probe failed, staying on polling: \(error)",
                                           type: SocketEngine.logTypeIO)
            await webSocket.close(code: 1000, reason: "")
            return
        }

        let probing = self.state.withLock { state -> Bool in
            guard state.session.isCurrent(generation) else { return false }
            state.probing = true
            state.fastUpgrade = true
            return true
        }
        guard probing, self.adopt(webSocket, generation: generation) else { return }

        // Let an in-flight POST finish so nothing is written out of order (bounded wait).
        for _ in 0..<2_000 {
            let writing = self.state.withLock { $0.session.writerActive }
            if !writing { break }
            try? await Task.sleep(for: .milliseconds(5))
        }

        do {
            try await webSocket.send(.text("5"))
        } catch {
            self.closeOut(generation: generation, reason: error.message)
            return
        }

        guard self.isCurrent(generation) else { return }
        self.doFastUpgrade()
        DefaultSocketLogger.Logger.log("Upgraded to WebSocket", type: SocketEngine.logTypeIO)

        var headers: [String: String] = [:]
        for (name, value) in webSocket.responseHeaders {
            headers[name] = value
        }
        let client = self.client
        client?.engineDidWebsocketUpgrade(headers: headers)

        // The server answers the pending GET with a noop; let the poll loop finish handling it
        // before WebSocket messages are handled, so packets stay in order.
        await pollTask.value
        await self.receiveLoop(webSocket, generation: generation)
    }

    /// Handles WebSocket messages until the connection ends.
    func receiveLoop(_ webSocket: any WebSocketConnection, generation: Int) async {
        while !Task.isCancelled {
            let message: WebSocketMessage?
            do {
                message = try await webSocket.receive()
            } catch {
                self.closeOut(generation: generation, reason: "Socket Disconnected")
                return
            }
            guard self.isCurrent(generation) else { return }
            switch message {
            case let .text(text)?:
                self.handleEngineText(Substring(text), generation: generation)
            case let .binary(bytes)?:
                self.parseEngineData(Data(bytes))
            case nil:
                self.closeOut(generation: generation, reason: "Socket Disconnected")
                return
            }
        }
    }
}
