/// One event dispatched by an ``SSEParser`` (WHATWG HTML §9.2.6, "dispatch the event").
package struct SSEEvent: Sendable, Hashable {
    /// The `event` field's value, or `nil` when the block had none or an empty one
    /// (a browser would report the type `message` then).
    package var type: String?
    /// The `data` values of the block joined with LF, without the trailing LF.
    package var data: String
    /// The `id` field this block carried itself (the last one, `""` for an empty `id:`),
    /// or `nil` when it carried none. `id` values containing U+0000 are ignored.
    package var id: String?
    /// The stream's last event ID at dispatch: persists across events until a later `id`
    /// field changes it (this is what a reconnection sends as `Last-Event-ID`).
    package var lastEventId: String
    /// Whether the block had a `data` field. Always `true` for dispatched events; `false` only
    /// for a block without data reported by
    /// ``SSEParser/Configuration/dispatchesBlocksWithoutData`` (then ``data`` is empty).
    package var hasData: Bool

    package init(type: String? = nil, data: String, id: String? = nil, lastEventId: String = "", hasData: Bool = true) {
        self.type = type
        self.data = data
        self.id = id
        self.lastEventId = lastEventId
        self.hasData = hasData
    }
}
