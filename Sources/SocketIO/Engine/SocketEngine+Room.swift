/// Backpressure for writers that can wait (SocketIOConcurrency's async `emit`): instead of
/// running into the outbound bound and being refused (`SocketEngineWriteError.bufferFull`),
/// such a writer waits while the buffers are more than half full.
extension SocketEngine {
    /// One writer waiting in ``waitForOutboundRoom()``.
    struct RoomWaiter {
        var id: UInt64
        var continuation: UnsafeContinuation<Void, Never>
    }

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
        while !Task.isCancelled {
            let id = self.state.withLock { state -> UInt64? in
                guard Self.isCrowded(state) else { return nil }
                defer { state.nextRoomWaiterID &+= 1 }
                return state.nextRoomWaiterID
            }
            guard let id else { return }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                    let goNow = self.state.withLock { state -> Bool in
                        // Checked under the lock: a send that finished or a cancellation after
                        // this finds the waiter listed.
                        guard Self.isCrowded(state), !Task.isCancelled else { return true }
                        state.roomWaiters.append(RoomWaiter(id: id, continuation: continuation))
                        return false
                    }
                    if goNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = self.state.withLock { state -> RoomWaiter? in
                    guard let index = state.roomWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.roomWaiters.remove(at: index)
                }
                waiter?.continuation.resume()
            }
        }
    }

    /// Resumes every waiting writer; each checks for room again.
    func wakeRoomWaiters() {
        let waiters = self.state.withLock { state -> [RoomWaiter] in
            guard !state.roomWaiters.isEmpty else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }
}
