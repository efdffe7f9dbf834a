package import EngineIOProtocol
public import Foundation
import RealtimeSync
import SocketIOProtocol

/// Catch-all listeners beyond upstream's one `onAny`: every event this socket writes
/// (socket.io-client's `onAnyOutgoing` / `offAnyOutgoing`), and every event it receives for
/// SocketIOConcurrency's stream of all events.
extension SocketIOClient {
    /// A listener of ``onAnyOutgoing(_:)``.
    struct OutgoingListener {
        let id: UUID
        let handler: (SocketAnyEvent) -> Void
    }

    /// A subscriber to every incoming event (SocketIOConcurrency's `anyEvents()`): network
    /// events as decoded values, the public `handleEvent` callers' as `[Any]`.
    struct IncomingSubscriber {
        let id: UUID
        let values: (String, [JSONValue]) -> Void
        let items: (String, [Any]) -> Void
    }

    /// Adds a handler called, on `handleQueue`, with every event this socket actually writes
    /// to the transport: socket.io-client's `onAnyOutgoing`.
    ///
    /// ```swift
    /// socket.onAnyOutgoing { event in
    ///     print("sent", event.event, event.items ?? [])
    /// }
    /// ```
    ///
    /// An emit refused while not connected, a volatile emit that was dropped, or one still kept
    /// by `.sendBuffer` is not reported; a kept emit is reported when it is sent. Acks are not
    /// events and are not reported.
    ///
    /// - Parameter handler: Called with the event's name and its items.
    /// - Returns: An id for ``offAnyOutgoing(id:)``.
    @discardableResult
    public func onAnyOutgoing(_ handler: @escaping (SocketAnyEvent) -> Void) -> UUID {
        let listener = OutgoingListener(id: UUID(), handler: handler)
        self.state.withLock { $0.outgoingListeners.append(listener) }
        return listener.id
    }

    /// Removes the ``onAnyOutgoing(_:)`` handler with this id.
    public func offAnyOutgoing(id: UUID) {
        self.state.withLock { $0.outgoingListeners.removeAll { $0.id == id } }
    }

    /// Removes every ``onAnyOutgoing(_:)`` handler (socket.io-client's `offAnyOutgoing()`).
    public func offAnyOutgoing() {
        self.state.withLock { $0.outgoingListeners.removeAll() }
    }

    /// Reports an event that was just handed to the engine to the outgoing listeners, on
    /// `handleQueue`.
    func reportOutgoing(_ listeners: [OutgoingListener], event: String, items: @autoclosure () -> [Any]) {
        guard !listeners.isEmpty else { return }
        let box = UncheckedSendable((listeners, SocketAnyEvent(event: event, items: items())))
        (self.manager?.handleQueue ?? DispatchQueue.main).async {
            for listener in box.value.0 {
                listener.handler(box.value.1)
            }
        }
    }

    /// The outgoing listeners now.
    var outgoingListeners: [OutgoingListener] {
        self.state.withLock { $0.outgoingListeners }
    }

    /// Registers a subscriber to every incoming event (SocketIOConcurrency's stream of all
    /// events): network events reach `values` (on the reading thread when nothing needs
    /// `handleQueue`), the public `handleEvent` callers' reach `items`.
    ///
    /// - Returns: An id for ``offAnyIncoming(id:)``.
    package func onAnyIncoming(
        values: @escaping (String, [JSONValue]) -> Void,
        items: @escaping (String, [Any]) -> Void
    ) -> UUID {
        let subscriber = IncomingSubscriber(id: UUID(), values: values, items: items)
        self.state.withLock { $0.incomingSubscribers.append(subscriber) }
        return subscriber.id
    }

    /// Removes the subscriber of ``onAnyIncoming(values:items:)`` with this id.
    package func offAnyIncoming(id: UUID) {
        self.state.withLock { $0.incomingSubscribers.removeAll { $0.id == id } }
    }
}
