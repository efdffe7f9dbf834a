import SSEProtocol

extension ServerEvent {
    /// The parser's event as a `ServerEvent`, its strings moved out (`event` is left with
    /// empty fields): the one conversion of the `DataTask` path, of `serverSentEvents()` on a
    /// byte sequence, and of ``parse(from:mode:)``. A block without a `data` field (reported
    /// only by ``parse(from:mode:)``'s parser) has `nil` data.
    init(taking event: inout SSEEvent) {
        var data = ""
        swap(&data, &event.data)
        self.init(id: event.id.take(), event: event.type.take(), data: event.hasData ? data : nil)
    }
}
