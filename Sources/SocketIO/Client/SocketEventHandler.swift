package import EngineIOProtocol
public import Foundation

/// A wrapper around a handler.
public struct SocketEventHandler {
    // MARK: Properties

    /// The event for this handler.
    public let event: String

    /// A unique identifier for this handler.
    public let id: UUID

    /// The actual handler function.
    public let callback: NormalCallback

    /// For a subscriber of `SocketIOConcurrency`: called with an event's arguments as the
    /// protocol layer decoded them, instead of ``callback``, when the event comes from the
    /// network. Such a handler needs no `[Any]` and no hop to `handleQueue`.
    package var values: (([JSONValue]) -> Void)? = nil

    // MARK: Methods

    /// Causes this handler to be executed.
    ///
    /// - parameter items: The data that this handler should be called with.
    /// - parameter ack: The ack number that this event expects. Pass -1 to say this event doesn't expect an ack.
    /// - parameter socket: The socket that is calling this event.
    public func executeCallback(with items: [Any], withAck ack: Int, withSocket socket: SocketIOClient) {
        callback(items, SocketAckEmitter(socket: socket, ackNum: ack))
    }
}
