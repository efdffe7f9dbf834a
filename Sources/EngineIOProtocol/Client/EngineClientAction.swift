package import RealtimeTime

/// What the owner of an ``EngineClientStateMachine`` must do, in the order returned.
///
/// The owner performs I/O for the machine: it issues HTTP requests and WebSocket operations,
/// keeps one timer, and reports results back as inputs. Query parameters follow
/// engine.io-protocol v4, "Transports": `EIO=4`, `transport=polling|websocket`, and `sid` once known.
package enum EngineClientAction: Sendable, Hashable {
    /// Issue a long-polling `GET` (`transport=polling`, with `sid` when non-nil) and report
    /// ``EngineClientStateMachine/pollingGETCompleted(body:now:)`` or
    /// ``EngineClientStateMachine/pollingGETFailed(reason:)``.
    case sendPollingGET(sid: String?)
    /// Issue a polling `POST` with `body` (`Content-Type: text/plain;charset=UTF-8`) and report
    /// ``EngineClientStateMachine/pollingPOSTCompleted(now:)`` or
    /// ``EngineClientStateMachine/pollingPOSTFailed(reason:)``.
    case sendPollingPOST(sid: String, body: [UInt8])
    /// Open a WebSocket (`transport=websocket`, with `sid` when upgrading) and report
    /// ``EngineClientStateMachine/webSocketOpened(now:)`` or a failure.
    case openWebSocket(sid: String?)
    /// Send these frames on the WebSocket, in order.
    case sendWebSocketFrames([EngineWebSocketFrame])
    /// Close the WebSocket (opened or still opening); further reports about it are ignored.
    case closeWebSocket
    /// Abort the polling requests in flight; further reports about them are ignored.
    case cancelPollingRequests
    /// (Re)arm the single heartbeat timer to fire at `deadline`, replacing any earlier one, and
    /// call ``EngineClientStateMachine/heartbeatTimerFired(now:)`` then.
    case scheduleHeartbeatTimeout(MonotonicInstant)
    /// Disarm the heartbeat timer.
    case cancelHeartbeatTimeout
    /// The session is open (the `open` packet arrived).
    case opened(EngineHandshake)
    /// The session moved from polling to WebSocket.
    case upgraded
    /// A text `message` packet for the layer above, as the packet's text (see
    /// ``EngineMessageText``: a WebSocket frame's text is handed on without a copy).
    case deliverMessage(EngineMessageText)
    /// A binary `message` packet for the layer above.
    case deliverBinaryMessage([UInt8])
    /// Engine.IO 3: the server answered the client's ping (upstream reports it as the `pong`
    /// client event). Never produced for v4, where the server pings.
    case pongReceived
    /// A ping from the server arrived and its pong was just written (only with
    /// ``EngineClientStateMachine/Configuration/reportsPings``; upstream reports it as the
    /// `ping` and `pong` client events).
    case pingReceived
    /// Engine.IO 3: the client's own ping was just written (only with
    /// ``EngineClientStateMachine/Configuration/reportsPings``; upstream's `ping` client event).
    case pingSent
    /// The send action just before this one (a ``sendPollingPOST(sid:body:)`` or
    /// ``sendWebSocketFrames(_:)``) carries the writes given to
    /// ``EngineClientStateMachine/send(_:writeID:)`` up to and including `writeID`: their
    /// completions are due once that send is done. Only produced for writes with an id.
    case carriesWrites(through: Int)
    /// The session is over; the machine accepts no more work.
    case closed(EngineCloseReason)
}

/// Why an Engine.IO session ended.
package enum EngineCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// The client asked to close (``EngineClientStateMachine/close()``).
    case clientClosed
    /// The server sent a `close` packet.
    case serverClosed
    /// No `ping` arrived within `pingInterval + pingTimeout` (engine.io-protocol v4, "Heartbeat").
    case pingTimeout
    /// The active transport failed (network error, HTTP error status, WebSocket closed).
    case transportError(String)
    /// The server sent something that is not Engine.IO v4.
    case protocolError(EngineProtocolError)

    package var description: String {
        switch self {
        case .clientClosed: return "client close"
        case .serverClosed: return "server close"
        case .pingTimeout: return "ping timeout"
        case .transportError(let reason): return "transport error: \(reason)"
        case .protocolError(let error): return "protocol error: \(error)"
        }
    }
}

/// The transports of Engine.IO v4 (engine.io-protocol v4, "Transports").
package enum EngineTransport: String, Sendable, Hashable {
    /// HTTP long-polling.
    case polling
    /// WebSocket.
    case webSocket = "websocket"
}
