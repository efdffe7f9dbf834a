import Dispatch
import Foundation
import SocketIO

extension SocketIOClient {
    /// While the socket is connecting (after a `connect()` that has not completed yet, or while
    /// the manager reconnects), suspends until it is connected; returns at once otherwise.
    ///
    /// socket.io-client's rule for an emit made before the connection: it waits for the
    /// connection instead of failing. The async `emit` and `emitWithAck` follow it, so the
    /// seed's usage works however `try await socket.connect()` binds: at the top level of
    /// `main.swift`, Swift binds it to SocketIO's synchronous `connect(withPayload:)`, which
    /// returns while the socket is still connecting.
    ///
    /// The wait ends when the socket connects, stops connecting (a refused or failed connect,
    /// a disconnect), `timeout` seconds pass (`nil`: no limit), or the task is cancelled. An
    /// emit kept by the manager's `.sendBuffer(n)` does not wait here: the socket keeps it.
    ///
    /// - Returns: `true` when the socket is connected at the end of the wait.
    func waitWhileConnecting(timeout: TimeInterval?) async -> Bool {
        let (status, keepsEmits) = self.emitReadiness
        guard status == .connecting, !keepsEmits else { return status == .connected }
        let operation = PendingSocketOperation<Void>(socket: self)
        _ = await operation.run { operation in
            operation.register { socket in
                socket.on(clientEvent: .connect) { _, _ in operation.finish(.success(())) }
            }
            operation.register { socket in
                socket.on(clientEvent: .statusChange) { items, _ in
                    if let status = ClientEventPayload.status(items), status != .connecting {
                        operation.finish(.success(()))
                    }
                }
            }
            operation.register { socket in
                socket.on(clientEvent: .disconnect) { _, _ in operation.finish(.success(())) }
            }
            if let timeout {
                operation.finish(after: timeout, with: .success(()))
            }
            // Connected (or gave up) before the handlers were in place.
            if self.status != .connecting { operation.finish(.success(())) }
        }
        return self.status == .connected
    }
}

/// Seconds left of a timeout that started at `start` (`DispatchTime.now()`), at least a
/// millisecond so that a caller's timer still runs.
func secondsLeft(of timeout: TimeInterval, since start: DispatchTime) -> TimeInterval {
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    return max(timeout - elapsed, 0.001)
}
