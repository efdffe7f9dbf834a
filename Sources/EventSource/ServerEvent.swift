/// A server-sent event parsed by the built-in parser.
///
/// In ``EventSource/Mode/default`` mode the fields follow the WHATWG interpretation
/// (HTML §9.2.6): `data` is the event's `data` values joined with LF, `event` is `nil` when
/// the stream named no type, and `id` is the `id` field this event carried (the stream's
/// persistent last event ID is ``EventSource/DataTask/lastMessageId``).
public struct ServerEvent: EVEvent, Hashable {
    // Layout: `data` inline and the rarer fields behind one reference, 24 bytes in all, so an
    // event fits the inline buffer of `any EVEvent` and delivering a data-only event costs no
    // allocation besides its string.
    private final class Extras: @unchecked Sendable {
        // @unchecked: never mutated once shared; setters copy unless uniquely referenced.
        var id: String?
        var event: String?
        var other: [String: String]?
        var time: String?

        init(id: String?, event: String?, other: [String: String]?, time: String?) {
            self.id = id
            self.event = event
            self.other = other
            self.time = time
        }

        var isEmpty: Bool { self.id == nil && self.event == nil && self.other == nil && self.time == nil }
    }

    private var storedData: String?
    private var extras: Extras?

    /// The `id` field this event carried, or `nil`. The stream's last event ID, which persists
    /// across events, is ``EventSource/DataTask/lastMessageId``.
    public var id: String? {
        get { self.extras?.id }
        set { self.mutateExtras { $0.id = newValue } }
    }

    /// The event type (the `event` field), or `nil` when the stream named none: a `message`.
    public var event: String? {
        get { self.extras?.event }
        set { self.mutateExtras { $0.event = newValue } }
    }

    /// The event's data: its `data` values joined with LF (in ``EventSource/Mode/dataOnly``
    /// mode, the block's value), or `nil` when it had none.
    public var data: String? {
        get { self.storedData }
        set { self.storedData = newValue }
    }

    /// Fields the built-in parser keeps besides the standard ones (``EventSource/Mode/dataOnly``
    /// lines without a colon), or `nil`.
    public var other: [String: String]? {
        get { self.extras?.other }
        set { self.mutateExtras { $0.other = newValue } }
    }

    /// A non-standard `time` field (``EventSource/Mode/dataOnly`` mode), or `nil`.
    public var time: String? {
        get { self.extras?.time }
        set { self.mutateExtras { $0.time = newValue } }
    }

    /// An event with the given fields.
    public init(
        id: String? = nil, event: String? = nil, data: String? = nil,
        other: [String: String]? = nil, time: String? = nil
    ) {
        self.storedData = data
        if id != nil || event != nil || other != nil || time != nil {
            self.extras = Extras(id: id, event: event, other: other, time: time)
        }
    }

    private mutating func mutateExtras(_ body: (Extras) -> Void) {
        if self.extras == nil {
            self.extras = Extras(id: nil, event: nil, other: nil, time: nil)
        } else if !isKnownUniquelyReferenced(&self.extras) {
            let old = self.extras
            self.extras = Extras(id: old?.id, event: old?.event, other: old?.other, time: old?.time)
        }
        if let extras = self.extras {
            body(extras)
            if extras.isEmpty { self.extras = nil }
        }
    }

    /// Two events are equal when every field is.
    public static func == (lhs: ServerEvent, rhs: ServerEvent) -> Bool {
        lhs.data == rhs.data && lhs.id == rhs.id && lhs.event == rhs.event && lhs.other == rhs.other
            && lhs.time == rhs.time
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.data)
        hasher.combine(self.id)
        hasher.combine(self.event)
        hasher.combine(self.other)
        hasher.combine(self.time)
    }
}

extension ServerEvent: CustomStringConvertible {
    /// Every field, for logs and debugging: `ServerEvent(id: ..., event: ..., data: ..., ...)`.
    public var description: String {
        "ServerEvent(id: \(self.id.debugDescription), event: \(self.event.debugDescription), "
            + "data: \(self.data.debugDescription), other: \(self.other.debugDescription), time: \(self.time.debugDescription))"
    }
}
