public import Foundation
public import SocketIO

extension SocketIOClient {
    /// Connects the socket's namespace and suspends until it is connected.
    ///
    /// Calls socket.io-client-swift's `connect(withPayload:)` (which makes the manager connect
    /// if needed) and waits for the namespace's `.connect` client event, or a `.connected`
    /// status. Returns at once if the socket is already connected.
    ///
    /// ```swift
    /// try await socket.connect()                                  // 5 s
    /// try await socket.connect(withPayload: ["token": token], timeout: 10)
    /// ```
    ///
    /// A connect that times out is abandoned: the socket leaves its namespace.
    ///
    /// - Parameters:
    ///   - payload: The CONNECT packet's payload (Socket.IO v4 `auth`), or `nil`.
    ///   - timeout: Seconds to wait; finite and `> 0`.
    /// - Throws: ``Error/invalidTimeout(_:)``; ``Error/connectTimedOut(timeout:)``;
    ///   ``Error/cancelled`` when the calling task is cancelled;
    ///   ``Error/clientError(event:message:source:)`` with the server's message when it refuses
    ///   the namespace (CONNECT_ERROR) or the client reports an error;
    ///   ``Error/disconnected(event:reason:)`` when the socket disconnects meanwhile;
    ///   ``Error/invalidSocketData(event:message:)`` when `payload` cannot be represented.
    /// - Important: Outside an `async` function (at the top level of `main.swift`),
    ///   `try await socket.connect()` binds to socket.io-client-swift's synchronous
    ///   `connect(withPayload:)`; call this one from an `async` function.
    public func connect(
        withPayload payload: [String: SocketData]? = nil,
        timeout: TimeInterval = 5
    ) async throws(Error) {
        try Error.validate(timeout: timeout)
        guard !Task.isCancelled else { throw .cancelled }
        let event = SocketClientEvent.connect.rawValue
        var connectPayload: [String: Any]?
        if let payload {
            do {
                connectPayload = try payload.mapValues { try $0.socketRepresentation() }
            } catch {
                throw .invalidSocketData(event: event, message: String(describing: error))
            }
        }
        let operation = PendingSocketOperation<Void>(socket: self)
        let outcome = await operation.run { operation in
            guard self.status != .connected else {
                operation.finish(.success(()))
                return
            }
            operation.register { socket in
                socket.on(clientEvent: .connect) { _, _ in operation.finish(.success(())) }
            }
            operation.register { socket in
                socket.on(clientEvent: .statusChange) { items, _ in
                    if ClientEventPayload.status(items) == .connected { operation.finish(.success(())) }
                }
            }
            operation.register { socket in
                socket.on(clientEvent: .error) { items, _ in
                    operation.finish(.failure(Error(clientErrorItems: items, event: event)))
                }
            }
            operation.register { socket in
                socket.on(clientEvent: .disconnect) { items, _ in
                    let reason = DisconnectReason(rawReason: items.first as? String)
                    operation.finish(.failure(.disconnected(event: event, reason: reason)))
                }
            }
            operation.finish(after: timeout, with: .failure(.connectTimedOut(timeout: timeout)), cleanup: { socket in
                // Abandon the attempt: leave the namespace instead of connecting later.
                if socket.status != .connected { socket.disconnect() }
            })
            self.connect(withPayload: connectPayload)
            if self.status == .connected { operation.finish(.success(())) }
        }
        try outcome.get()
    }

    /// Disconnects the socket and suspends until the disconnection is confirmed.
    ///
    /// Calls socket.io-client-swift's `disconnect()` and waits for the `.disconnect` client
    /// event; a status of `.disconnected` or `.notConnected` (seen when the call returns or in a
    /// `.statusChange`) also confirms it. Returns at once if the socket is not connected or
    /// connecting.
    ///
    /// ```swift
    /// try await socket.disconnect()
    /// ```
    ///
    /// - Parameter timeout: Seconds to wait; finite and `> 0`.
    /// - Throws: ``Error/invalidTimeout(_:)``; ``Error/disconnectTimedOut(timeout:)``;
    ///   ``Error/cancelled`` when the calling task is cancelled.
    public func disconnect(timeout: TimeInterval = 5) async throws(Error) {
        try Error.validate(timeout: timeout)
        guard !Task.isCancelled else { throw .cancelled }
        let operation = PendingSocketOperation<Void>(socket: self)
        let outcome = await operation.run { operation in
            guard self.status.active else {
                operation.finish(.success(()))
                return
            }
            operation.register { socket in
                socket.on(clientEvent: .disconnect) { _, _ in operation.finish(.success(())) }
            }
            operation.register { socket in
                socket.on(clientEvent: .statusChange) { items, _ in
                    if let status = ClientEventPayload.status(items), !status.active {
                        operation.finish(.success(()))
                    }
                }
            }
            operation.finish(after: timeout, with: .failure(.disconnectTimedOut(timeout: timeout)))
            self.disconnect()
            if !self.status.active { operation.finish(.success(())) }
        }
        try outcome.get()
    }
}
