public import Foundation

/// Represents some event that was received.
public final class SocketAnyEvent: NSObject, @unchecked Sendable {
    // `@unchecked Sendable`: immutable; the `[Any]` items are never mutated.
    // MARK: Properties

    /// The event name.
    public let event: String

    /// The data items for this event.
    public let items: [Any]?

    /// The description of this event.
    override public var description: String {
        return "SocketAnyEvent: Event: \(event) items: \(String(describing: items))"
    }

    init(event: String, items: [Any]?) {
        self.event = event
        self.items = items
    }
}
