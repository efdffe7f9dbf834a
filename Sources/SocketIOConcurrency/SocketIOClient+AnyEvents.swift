import EngineIOProtocol
public import SocketIO

extension SocketIOClient {
    /// One event received by a socket: its name and its payload (one argument: that argument;
    /// several or none: their array, as ``SocketIO/SocketIOClient/on(_:bufferingPolicy:)``
    /// gives it).
    public struct IncomingEvent: Sendable, Hashable {
        /// The event's name.
        public let name: String
        /// The event's arguments as one payload.
        public let payload: Payload

        /// An event named `name` carrying `payload`.
        public init(name: String, payload: Payload) {
            self.name = name
            self.payload = payload
        }
    }

    /// Every event the socket receives, whatever its name, as a typed stream: the async form
    /// of socket.io-client's `onAny`.
    ///
    /// ```swift
    /// for try await event in socket.anyEvents() {
    ///     print(event.name, event.payload)
    /// }
    /// ```
    ///
    /// Unlike socket.io-client-swift's `onAny(_:)`, which keeps one handler, any number of
    /// these streams can run at once, beside `onAny`. The stream ends as
    /// ``on(_:bufferingPolicy:)``'s does: when the consumer stops, the socket disconnects
    /// (``Error/disconnected(event:reason:)`` with the event `"*"`), or reports `.error`.
    ///
    /// - Parameter bufferingPolicy: What to keep while the consumer is slower than the server;
    ///   the default keeps every event, holding the connection's reading back while 256 wait
    ///   (see ``on(_:bufferingPolicy:)``).
    /// - Returns: A unicast stream; iterate it from one task.
    public func anyEvents(
        bufferingPolicy: AsyncThrowingStream<IncomingEvent, Error>.BufferingPolicy = .unbounded
    ) -> AsyncThrowingStream<IncomingEvent, Error> {
        let event = "*"
        return AsyncThrowingStream(bufferingPolicy: bufferingPolicy, backpressure: self.streamBackpressure()) { continuation in
            let subscriberID = self.onAnyIncoming(
                values: { name, arguments in
                    continuation.yield(IncomingEvent(name: name, payload: Payload(arguments: arguments)))
                },
                items: { name, items in
                    do throws(Error) {
                        continuation.yield(IncomingEvent(name: name, payload: try Payload(socketItems: items)))
                    } catch {
                        continuation.finish(throwing: error)
                    }
                })
            self.finishOnDisconnectOrError(continuation, event: event) { self.offAnyIncoming(id: subscriberID) }
        }
    }
}
