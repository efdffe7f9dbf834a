/// The fields of one server-sent event, as ``EventSource`` delivers it in
/// ``EventSource/EventType/event(_:)``.
///
/// ``ServerEvent`` is the implementation the built-in parser produces. A custom
/// ``EventParser`` returns its own conforming types; consumers cast back to them
/// (`serverEvent as? MyEvent`).
public protocol EVEvent: Sendable {
    /// The `id` field the event carried, or `nil`.
    var id: String? { get }
    /// The `event` field (the event type), or `nil` when absent (the type is then `message`).
    var event: String? { get }
    /// The event's data: its `data` values joined with LF.
    var data: String? { get }
    /// Other fields, by name (custom parsers; `.dataOnly` lines without a colon).
    var other: [String: String]? { get }
    /// A non-standard `time` field (custom parsers; `.dataOnly` mode).
    var time: String? { get }
}

extension EVEvent {
    /// Whether every field is `nil` or empty.
    public var isEmpty: Bool {
        if let id = self.id, !id.isEmpty { return false }
        if let event = self.event, !event.isEmpty { return false }
        if let data = self.data, !data.isEmpty { return false }
        if let other = self.other, !other.isEmpty { return false }
        if let time = self.time, !time.isEmpty { return false }
        return true
    }
}
