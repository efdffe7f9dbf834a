/// A server-sent event parsed by the built-in parser.
///
/// In ``EventSource/Mode/default`` mode the fields follow the WHATWG interpretation
/// (HTML §9.2.6): `data` is the event's `data` values joined with LF, `event` is `nil` when
/// the stream named no type, and `id` is the `id` field this event carried (the stream's
/// persistent last event ID is ``EventSource/DataTask/lastMessageId``).
public struct ServerEvent: EVEvent, Hashable {
    public var id: String?
    public var event: String?
    public var data: String?
    public var other: [String: String]?
    public var time: String?

    /// An event with the given fields.
    public init(id: String? = nil, event: String? = nil, data: String? = nil,
                other: [String: String]? = nil, time: String? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.other = other
        self.time = time
    }
}
