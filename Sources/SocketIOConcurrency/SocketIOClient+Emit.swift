public import Foundation
public import SocketIO

extension SocketIOClient {
    /// Emits `event` with `items` and returns once the write completed.
    ///
    /// ```swift
    /// await socket.emit("message:send", "hello", 42)
    /// ```
    ///
    /// Wraps socket.io-client-swift's `emit(_:with:completion:)`: it returns when the engine
    /// reports the write done. As there, a failure is not thrown but reported to the socket's
    /// `.error` handlers (e.g. `"Tried emitting when not connected"`); the call then returns
    /// at once. It also returns when the socket disconnects or the task is cancelled.
    /// Use ``emitWithAck(_:_:timeout:)`` for a delivery you can check.
    public func emit(_ event: String, _ items: SocketData...) async {
        await self.emit(event, with: items)
    }

    /// Emits `event` with an array of items and returns once the write completed.
    ///
    /// The array form of ``emit(_:_:)``; see there.
    public func emit(_ event: String, with items: [SocketData]) async {
        let operation = PendingSocketOperation<Void>(socket: self)
        _ = await operation.run { operation in
            // upstream reports a serialization failure as a `.error` event and never calls the
            // completion, nor does it without a manager: don't wait in those cases.
            let representable = (try? items.map { try $0.socketRepresentation() }) != nil
            guard representable, self.manager != nil else {
                self.emit(event, with: items, completion: nil)
                operation.finish(.success(()))
                return
            }
            operation.register { socket in
                socket.on(clientEvent: .disconnect) { _, _ in operation.finish(.success(())) }
            }
            self.emit(event, with: items, completion: { operation.finish(.success(())) })
        }
    }

    /// Emits `event` with `items`, asking for an acknowledgement, and returns the ack.
    ///
    /// ```swift
    /// let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3)
    /// ```
    ///
    /// The ack's items become one ``Payload``: a single item is that item's payload; zero or
    /// several items are an ``Payload/array(_:)``.
    ///
    /// - Parameters:
    ///   - event: The event name.
    ///   - items: The event's arguments.
    ///   - timeout: Seconds to wait for the ack; finite and `> 0`.
    /// - Throws: ``Error/invalidTimeout(_:)``; ``Error/notConnected(event:)`` at once when the
    ///   socket is not connected; ``Error/ackTimedOut(event:timeout:)``;
    ///   ``Error/disconnected(event:reason:)`` when the socket disconnects first;
    ///   ``Error/cancelled`` when the calling task is cancelled;
    ///   ``Error/invalidSocketData(event:message:)`` when an item cannot be represented;
    ///   ``Error/unsupportedPayloadType(typeName:)`` for an ack the payload cannot hold.
    /// - Important: However the call ends (ack, timeout, disconnection, cancellation), the
    ///   socket's ack entry for the emit is removed with it (`SocketIOClient.cancelAck(_:)`):
    ///   no callback and no timer is left behind; a late ack from the server is ignored.
    public func emitWithAck(
        _ event: String,
        _ items: SocketData...,
        timeout: TimeInterval = 5
    ) async throws(Error) -> Payload {
        try await self.emitWithAck(event, with: items, timeout: timeout)
    }

    /// Emits `event` with an array of items, asking for an acknowledgement, and returns the ack.
    ///
    /// The array form of ``emitWithAck(_:_:timeout:)``; see there.
    public func emitWithAck(
        _ event: String,
        with items: [SocketData],
        timeout: TimeInterval = 5
    ) async throws(Error) -> Payload {
        try Error.validate(timeout: timeout)
        guard !Task.isCancelled else { throw .cancelled }
        let operation = PendingSocketOperation<Payload>(socket: self)
        let outcome = await operation.run { operation in
            guard self.status == .connected else {
                operation.finish(.failure(.notConnected(event: event)))
                return
            }
            operation.register { socket in
                socket.on(clientEvent: .disconnect) { items, _ in
                    let reason = DisconnectReason(rawReason: items.first as? String)
                    operation.finish(.failure(.disconnected(event: event, reason: reason)))
                }
            }
            operation.register { socket in
                socket.on(clientEvent: .error) { items, _ in
                    // Only this emit's failures: [event, items, error] or "not connected".
                    let ours = (items.count == 3 && items.first as? String == event)
                        || (items.count == 1 && items.first as? String == Error.notConnectedMessage)
                    guard ours else { return }
                    operation.finish(.failure(Error(clientErrorItems: items, event: event)))
                }
            }
            operation.finish(after: timeout, with: .failure(.ackTimedOut(event: event, timeout: timeout)))
            guard !operation.isFinished else { return }
            let ackID = self.emitWithAck(event, with: items).sendWithAck(timingOut: timeout) { ackItems in
                if let error = Error(ackItems: ackItems, event: event, timeout: timeout) {
                    operation.finish(.failure(error))
                    return
                }
                do throws(Error) {
                    operation.finish(.success(try Payload(socketItems: ackItems)))
                } catch {
                    operation.finish(.failure(error))
                }
            }
            if let ackID {
                // However the operation ends, the socket forgets the ack (no callback, no timer).
                operation.onFinish { socket in socket.cancelAck(ackID) }
            }
        }
        return try outcome.get()
    }
}
