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
    package var values: ((NetworkEventArguments) -> Void)? = nil

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

/// A network event's arguments as the protocol layer decoded them, for a `SocketIOConcurrency`
/// subscriber.
package struct NetworkEventArguments {
    /// Every argument, a recovery offset included (as `[Any]` handlers get them).
    package let values: [JSONValue]
    /// The last of ``values`` is the offset a recovering server appended
    /// (`NamespaceStateMachine.endsWithRecoveryOffset(asksForAck:lastArgumentIsString:)`).
    package let endsWithRecoveryOffset: Bool

    package init(values: [JSONValue], endsWithRecoveryOffset: Bool) {
        self.values = values
        self.endsWithRecoveryOffset = endsWithRecoveryOffset
    }

    /// The event's own arguments: ``values`` without the recovery offset.
    package var own: ArraySlice<JSONValue> {
        self.endsWithRecoveryOffset ? self.values.dropLast() : self.values[...]
    }
}
