import EngineIOClient
import RealtimeSync

/// Backpressure for writers that can wait (SocketIOConcurrency's async `emit`): instead of
/// running into the outbound bound and being refused (`SocketEngineWriteError.bufferFull`),
/// such a writer waits while the buffers are more than half full.
extension SocketEngine {
    /// The buffer the current transport fills is more than half full (the machine's write
    /// buffer while polling, before the handshake and in the upgrade window; the WebSocket
    /// send queue behind a write in progress). `false` when the engine is not open.
    package final var outboundIsCrowded: Bool {
        self.state.withLock { Self.isCrowded($0) }
    }

    private static func isCrowded(_ state: State) -> Bool {
        guard state.connected, !state.closed else { return false }
        return state.attempt.machine.isCrowded || state.attempt.webSocket.sendQueue.isCrowded
    }

    /// Returns once the outbound buffers have room (at most half full), the engine is not
    /// open, or the task is cancelled (the caller checks `Task.isCancelled`). Each send that
    /// finishes, and the close, wake the waiters, which check again.
    package final func waitForOutboundRoom() async {
        // Checked here first: with room, no nested async call (see `EngineDriverHost.readsPaused`).
        guard self.outboundIsCrowded else { return }
        // Woken with `false`: check again. `true`: room (or not open), or cancelled.
        while !Task.isCancelled {
            // The waiters are in the engine's half of the core's state.
            let slot = self.state.slot
            let done = await self.core.state.suspend(on: \.engines[slot].roomWaiters, cancelled: true) { state in
                Self.isCrowded(state.engines[slot]) ? nil : true
            }
            if done { return }
        }
    }

    /// Resumes every waiting writer; each checks for room again.
    func wakeRoomWaiters() {
        let waiters = self.state.withLock { $0.roomWaiters.takeAll() }
        for waiter in waiters { waiter.resume(returning: false) }
    }
}
