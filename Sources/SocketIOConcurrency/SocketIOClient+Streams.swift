import EngineIOProtocol
public import SocketIO

extension SocketIOClient {
    /// Subscribes to a regular event and returns its payloads as a typed stream.
    ///
    /// ```swift
    /// for try await payload in socket.on("message:new") {
    ///     print("incoming:", payload)
    /// }
    /// ```
    ///
    /// Each event delivers one ``Payload``: an event with one argument gives that argument's
    /// payload; with zero or several arguments, an ``Payload/array(_:)`` of them.
    ///
    /// The stream registers a handler for `event`, one for `.disconnect` and one for `.error`,
    /// and removes them exactly once when the stream ends for any reason: the consumer leaves
    /// the loop or its task is cancelled, the stream is released, the socket disconnects (the
    /// stream then throws ``Error/disconnected(event:reason:)``), the socket reports a
    /// `.error` client event, or an event's items cannot be converted (it throws that
    /// conversion error).
    ///
    /// A `.error` client event ends the stream by throwing its mapped error, as the
    /// socket.io-client-swift-concurrency package does: "Tried emitting when not connected"
    /// throws ``Error/notConnected(event:)`` naming `event`, a CONNECT_ERROR or an engine error
    /// throws ``Error/clientError(event:message:source:)``. Subscribe again to go on (watch
    /// errors without ending anything with ``on(clientEvent:bufferingPolicy:)``). A
    /// reconnection does not end it: the socket reports `.reconnect`, not `.disconnect`, and
    /// the stream resumes after it rejoins.
    ///
    /// - Parameters:
    ///   - event: The event name.
    ///   - bufferingPolicy: What to keep while the consumer is slower than the server. The
    ///     default, `.unbounded`, keeps every payload, with bounded memory: while 256 payloads
    ///     wait, the socket's manager stops reading its connection (the server feels TCP
    ///     backpressure), and it reads again once the consumer is down to 128. Dropping is
    ///     opt-in: `.bufferingNewest(n)` keeps the latest `n`, `.bufferingOldest(n)` the first
    ///     `n`; the stream's `droppedCount` says how many were dropped.
    /// - Returns: A unicast stream; iterate it from one task.
    /// - Important: Every stream and handler of the manager's sockets shares one connection:
    ///   while any stream is 256 behind, reading stops for all of them (the slowest consumer
    ///   governs, as with TCP), so end the streams you no longer iterate (leave the loop or
    ///   cancel its task). While an `emitWithAck` of the async API waits for its ack, reading
    ///   goes on until a stream is 4,096 behind, so a loop that awaits acks does not wait on
    ///   itself; past that the reading stops regardless, and an ack behind the unread events
    ///   may time out.
    /// - Important: The handlers are registered before this returns, so every event handled
    ///   after the call is delivered. Removal happens in the stream's termination handler, on
    ///   the thread that ends the stream.
    public func on(
        _ event: String,
        bufferingPolicy: AsyncThrowingStream<Payload, Error>.BufferingPolicy = .unbounded
    ) -> AsyncThrowingStream<Payload, Error> {
        self.subscribe(to: event, bufferingPolicy: bufferingPolicy) { payload throws(Error) in payload }
    }

    /// The stream of ``on(_:bufferingPolicy:)`` with each payload passed through `transform`;
    /// a transform that throws ends the stream with its error.
    ///
    /// With `ownArgumentsOnly`, the payload leaves out the offset a server with connection
    /// state recovery appends to an event (`NamespaceStateMachine.endsWithRecoveryOffset`):
    /// what decodes an event as a type sees only the arguments the server's app emitted.
    func subscribe<Element>(
        to event: String,
        bufferingPolicy: AsyncThrowingStream<Element, Error>.BufferingPolicy,
        ownArgumentsOnly: Bool = false,
        transform: @escaping @Sendable (Payload) throws(Error) -> Element
    ) -> AsyncThrowingStream<Element, Error> {
        AsyncThrowingStream(bufferingPolicy: bufferingPolicy, backpressure: self.streamBackpressure()) { continuation in
            // Network events arrive as decoded values (on the thread that read them, when no
            // `[Any]` handler wants the event); `handleEvent` callers' items are converted.
            let eventID = self.on(
                event,
                values: { arguments in
                    do throws(Error) {
                        let payload = ownArgumentsOnly ? Payload(arguments: arguments.own) : Payload(arguments: arguments.values)
                        continuation.yield(try transform(payload))
                    } catch {
                        continuation.finish(throwing: error)
                    }
                },
                items: { [weak self] items, ack in
                    var items = items
                    if ownArgumentsOnly, let self, self.endsWithRecoveryOffset(items, ack: ack) { items.removeLast() }
                    do throws(Error) {
                        continuation.yield(try transform(try Payload(socketItems: items)))
                    } catch {
                        continuation.finish(throwing: error)
                    }
                })
            self.finishOnDisconnectOrError(continuation, event: event) { self.off(id: eventID) }
        }
    }

    /// Ends an event stream the way ``on(_:bufferingPolicy:)``'s ends: the socket's disconnect
    /// throws ``Error/disconnected(event:reason:)``, its `.error` the mapped error, both naming
    /// `event`. When the stream ends for any reason, the two handlers are removed and
    /// `unregister` removes the stream's own.
    func finishOnDisconnectOrError<Element>(
        _ continuation: AsyncThrowingStream<Element, Error>.Continuation, event: String,
        unregister: @escaping @Sendable () -> Void
    ) {
        let disconnectID = self.on(clientEvent: .disconnect) { items, _ in
            let reason = DisconnectReason(rawReason: items.first as? String)
            continuation.finish(throwing: .disconnected(event: event, reason: reason))
        }
        let errorID = self.on(clientEvent: .error) { items, _ in
            continuation.finish(throwing: Error(clientErrorItems: items, event: event))
        }
        continuation.onTermination { _ in
            unregister()
            self.off(id: disconnectID)
            self.off(id: errorID)
        }
    }

    /// Subscribes to a lifecycle event and returns its typed payloads.
    ///
    /// ```swift
    /// for try await event in socket.on(clientEvent: .disconnect) {
    ///     if case .disconnect(let reason) = event { print("disconnected:", reason) }
    /// }
    /// ```
    ///
    /// The stream registers one handler for `event` and removes it exactly once when the stream
    /// ends: the consumer leaves the loop or its task is cancelled, or the stream is released.
    /// It outlives disconnections and reconnections, like the handler it wraps. Items whose
    /// shape does not match the event end the stream with
    /// ``Error/invalidSocketData(event:message:)``.
    ///
    /// - Parameters:
    ///   - event: The client event.
    ///   - bufferingPolicy: What to keep while the consumer is slower than the socket; the
    ///     default keeps every event (client events come from the socket itself, a few a
    ///     minute, so they do not hold the connection's reading back).
    public func on(
        clientEvent event: SocketClientEvent,
        bufferingPolicy: AsyncThrowingStream<ClientEventPayload, Error>.BufferingPolicy = .unbounded
    ) -> AsyncThrowingStream<ClientEventPayload, Error> {
        AsyncThrowingStream(bufferingPolicy: bufferingPolicy) { continuation in
            let handlerID = self.on(clientEvent: event) { items, _ in
                do throws(Error) {
                    continuation.yield(try ClientEventPayload(clientEvent: event, items: items))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination { _ in self.off(id: handlerID) }
        }
    }

    /// The socket's status changes (`.statusChange` events) as a stream of `SocketIOStatus`.
    ///
    /// ```swift
    /// for try await status in socket.onStatusChange() where status == .connected {
    ///     print("online")
    /// }
    /// ```
    ///
    /// Registers one `.statusChange` handler and removes it exactly once when the stream ends
    /// (see ``on(clientEvent:bufferingPolicy:)``). The current status is not replayed: read
    /// `SocketIOClient.status` first if you need it.
    ///
    /// - Parameter bufferingPolicy: What to keep while the consumer is slower than the socket;
    ///   the default keeps every change.
    public func onStatusChange(
        bufferingPolicy: AsyncThrowingStream<SocketIOStatus, Error>.BufferingPolicy = .unbounded
    ) -> AsyncThrowingStream<SocketIOStatus, Error> {
        AsyncThrowingStream(bufferingPolicy: bufferingPolicy) { continuation in
            let handlerID = self.on(clientEvent: .statusChange) { items, _ in
                guard let status = ClientEventPayload.status(items) else {
                    continuation.finish(
                        throwing: .invalidSocketData(
                            event: SocketClientEvent.statusChange.rawValue,
                            message: "items of 'statusChange' should be [SocketIOStatus, rawValue]"))
                    return
                }
                continuation.yield(status)
            }
            continuation.onTermination { _ in self.off(id: handlerID) }
        }
    }
}

extension SocketIOClient {
    /// The bound of a stream of this socket's network events: while 256 values wait, the
    /// socket's manager stops reading (the slowest of its streams governs), unless an awaited
    /// ack needs the reading; while 4,096 wait, it stops reading regardless; at 128 it reads
    /// again (``StreamBackpressure``, `InboundBacklog`).
    func streamBackpressure() -> StreamBackpressure {
        .socket { [weak self] change in
            guard let self else { return }
            if change.from == .caughtUp { self.consumer(behind: true) }
            if change.to == .farBehind { self.consumer(farBehind: true) }
            if change.from == .farBehind { self.consumer(farBehind: false) }
            if change.to == .caughtUp { self.consumer(behind: false) }
        }
    }
}
