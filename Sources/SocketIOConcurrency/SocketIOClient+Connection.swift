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
    /// A connect that fails, times out or is cancelled is abandoned: unless it connected
    /// meanwhile, the socket leaves its namespace (socket.io-client-swift's `disconnect()`), so
    /// it does not join later when the manager reconnects. The manager itself (its engine and
    /// reconnection) stays as it is: `manager.disconnect()` stops it.
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
    ///   `connect(withPayload:)`, which returns while the socket is still connecting (Swift's
    ///   overload ranking, not something a library can change). The async ``emit(_:_:)`` and
    ///   ``emitWithAck(_:_:timeout:)`` wait for a connecting socket, so code written as the
    ///   seed's usage works there too; call this method from an `async` function to learn
    ///   whether and why a connect failed.
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
        try await self.awaitConnect(timeout: timeout) { self.connect(withPayload: connectPayload) }
    }

    /// Connects the socket's namespace with a CONNECT payload that `authProvider` supplies
    /// before each CONNECT (this one and every rejoin after a reconnection), and suspends until
    /// it is connected.
    ///
    /// ```swift
    /// try await socket.connect(authProvider: {
    ///     ["token": .string(try await tokens.fresh())]
    /// })
    /// ```
    ///
    /// socket.io-client's `auth` function: an access token that expired while the connection
    /// was down is replaced when the socket rejoins, instead of the server refusing the stale
    /// one. Each call of `authProvider` runs in a task the socket owns (cancelled by the next
    /// request and by `disconnect()`); an answer after the connection was lost again is
    /// ignored. Waiting, timeout and abandonment are those of ``connect(withPayload:timeout:)``.
    ///
    /// - Parameters:
    ///   - authProvider: Returns the payload (an ``Payload/object(_:)``, or `nil` for none).
    ///   - timeout: Seconds to wait; finite and `> 0`.
    /// - Throws: what ``connect(withPayload:timeout:)`` throws; when `authProvider` throws,
    ///   ``Error/clientError(event:message:source:)`` with `"auth provider failed: …"`.
    public func connect(
        authProvider: @escaping @Sendable () async throws -> Payload?,
        timeout: TimeInterval = 5
    ) async throws(Error) {
        try Error.validate(timeout: timeout)
        guard !Task.isCancelled else { throw .cancelled }
        try await self.awaitConnect(timeout: timeout) {
            self.connect(asyncAuthProvider: { try await authProvider()?.jsonValue }, timeoutAfter: 0, withHandler: nil)
        }
    }

    /// Starts a connect with `start` and waits for its outcome (see
    /// ``connect(withPayload:timeout:)``).
    private func awaitConnect(timeout: TimeInterval, start: @escaping () -> Void) async throws(Error) {
        let event = SocketClientEvent.connect.rawValue
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
            operation.finish(after: timeout, with: .failure(.connectTimedOut(timeout: timeout)))
            start()
            if self.status == .connected { operation.finish(.success(())) }
        }
        if case .failure = outcome { self.abandonConnect() }
        try outcome.get()
    }

    /// After a failed, timed-out or cancelled `connect`: leave the namespace unless it connected
    /// meanwhile, so that a later reconnection of the manager does not join it behind the
    /// caller's back.
    private func abandonConnect() {
        if self.status != .connected { self.disconnect() }
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
