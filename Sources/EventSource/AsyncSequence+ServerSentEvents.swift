public import Foundation

// `serverSentEvents()` for each kind of byte sequence: one pair of methods per element type,
// since the parser is fed arrays and each kind becomes one differently (ByteChunkReader).

extension AsyncSequence where Element == UInt8 {
    /// The server-sent events in these bytes: the bytes (`UInt8`), such as `FileHandle.bytes`, `URL.resourceBytes` or `URLSession.AsyncBytes`; they are gathered up to each line end before parsing.
    ///
    /// Parsed as a ``EventSource/DataTask`` parses a response body in
    /// ``EventSource/Mode/default`` mode (see ``ServerEventSequence``).
    ///
    /// ```swift
    /// for try await event in bytes.serverSentEvents() {
    ///     print(event.event ?? "message", event.data ?? "")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default, as ``EventSource/maximumEventSize``.
    ///   - terminator: the event that ends the stream (such as `.data("[DONE]")`): it is not
    ///     yielded, and the sequence ends there without reading further. `nil` by default.
    /// - Returns: the events, which throw ``EventStreamLimitError`` past the limit and the
    ///   errors of these bytes' sequence.
    @inlinable
    public func serverSentEvents(
        maximumEventSize: Int = 16 << 20, terminator: EventSource.Terminator? = nil
    ) -> ServerEventSequence<Self> {
        ServerEventSequence(base: self, reader: .bytes, maximumEventSize: maximumEventSize, terminator: terminator)
    }

    /// The server-sent events in these bytes, with their comment lines and `retry:` fields:
    /// the elements ``EventSource/DataTask/events(including:)`` delivers, from the bytes (`UInt8`), such as `FileHandle.bytes`, `URL.resourceBytes` or `URLSession.AsyncBytes`; they are gathered up to each line end before parsing.
    ///
    /// ```swift
    /// for try await element in bytes.serverSentEvents(including: .all) {
    ///     if let comment = element.comment { print("comment:", comment) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - extras: what to deliver besides the events.
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default.
    ///   - terminator: the event that ends the stream, not yielded; `nil` by default.
    /// - Returns: the elements (see ``ServerEventElementSequence``).
    @inlinable
    public func serverSentEvents(
        including extras: EventSource.Extras, maximumEventSize: Int = 16 << 20,
        terminator: EventSource.Terminator? = nil
    ) -> ServerEventElementSequence<Self> {
        ServerEventElementSequence(
            base: self, reader: .bytes, extras: extras, maximumEventSize: maximumEventSize,
            terminator: terminator)
    }
}

extension AsyncSequence where Element == [UInt8] {
    /// The server-sent events in these bytes: the byte arrays, such as an HTTP client's body chunks, split anywhere.
    ///
    /// Parsed as a ``EventSource/DataTask`` parses a response body in
    /// ``EventSource/Mode/default`` mode (see ``ServerEventSequence``).
    ///
    /// ```swift
    /// for try await event in bytes.serverSentEvents() {
    ///     print(event.event ?? "message", event.data ?? "")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default, as ``EventSource/maximumEventSize``.
    ///   - terminator: the event that ends the stream (such as `.data("[DONE]")`): it is not
    ///     yielded, and the sequence ends there without reading further. `nil` by default.
    /// - Returns: the events, which throw ``EventStreamLimitError`` past the limit and the
    ///   errors of these bytes' sequence.
    @inlinable
    public func serverSentEvents(
        maximumEventSize: Int = 16 << 20, terminator: EventSource.Terminator? = nil
    ) -> ServerEventSequence<Self> {
        ServerEventSequence(base: self, reader: .arrays, maximumEventSize: maximumEventSize, terminator: terminator)
    }

    /// The server-sent events in these bytes, with their comment lines and `retry:` fields:
    /// the elements ``EventSource/DataTask/events(including:)`` delivers, from the byte arrays, such as an HTTP client's body chunks, split anywhere.
    ///
    /// ```swift
    /// for try await element in bytes.serverSentEvents(including: .all) {
    ///     if let comment = element.comment { print("comment:", comment) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - extras: what to deliver besides the events.
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default.
    ///   - terminator: the event that ends the stream, not yielded; `nil` by default.
    /// - Returns: the elements (see ``ServerEventElementSequence``).
    @inlinable
    public func serverSentEvents(
        including extras: EventSource.Extras, maximumEventSize: Int = 16 << 20,
        terminator: EventSource.Terminator? = nil
    ) -> ServerEventElementSequence<Self> {
        ServerEventElementSequence(
            base: self, reader: .arrays, extras: extras, maximumEventSize: maximumEventSize,
            terminator: terminator)
    }
}

extension AsyncSequence where Element == ArraySlice<UInt8> {
    /// The server-sent events in these bytes: the array slices of bytes, split anywhere.
    ///
    /// Parsed as a ``EventSource/DataTask`` parses a response body in
    /// ``EventSource/Mode/default`` mode (see ``ServerEventSequence``).
    ///
    /// ```swift
    /// for try await event in bytes.serverSentEvents() {
    ///     print(event.event ?? "message", event.data ?? "")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default, as ``EventSource/maximumEventSize``.
    ///   - terminator: the event that ends the stream (such as `.data("[DONE]")`): it is not
    ///     yielded, and the sequence ends there without reading further. `nil` by default.
    /// - Returns: the events, which throw ``EventStreamLimitError`` past the limit and the
    ///   errors of these bytes' sequence.
    @inlinable
    public func serverSentEvents(
        maximumEventSize: Int = 16 << 20, terminator: EventSource.Terminator? = nil
    ) -> ServerEventSequence<Self> {
        ServerEventSequence(base: self, reader: .slices, maximumEventSize: maximumEventSize, terminator: terminator)
    }

    /// The server-sent events in these bytes, with their comment lines and `retry:` fields:
    /// the elements ``EventSource/DataTask/events(including:)`` delivers, from the array slices of bytes, split anywhere.
    ///
    /// ```swift
    /// for try await element in bytes.serverSentEvents(including: .all) {
    ///     if let comment = element.comment { print("comment:", comment) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - extras: what to deliver besides the events.
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default.
    ///   - terminator: the event that ends the stream, not yielded; `nil` by default.
    /// - Returns: the elements (see ``ServerEventElementSequence``).
    @inlinable
    public func serverSentEvents(
        including extras: EventSource.Extras, maximumEventSize: Int = 16 << 20,
        terminator: EventSource.Terminator? = nil
    ) -> ServerEventElementSequence<Self> {
        ServerEventElementSequence(
            base: self, reader: .slices, extras: extras, maximumEventSize: maximumEventSize,
            terminator: terminator)
    }
}

extension AsyncSequence where Element == Data {
    /// The server-sent events in these bytes: the `Data` chunks, split anywhere.
    ///
    /// Parsed as a ``EventSource/DataTask`` parses a response body in
    /// ``EventSource/Mode/default`` mode (see ``ServerEventSequence``).
    ///
    /// ```swift
    /// for try await event in bytes.serverSentEvents() {
    ///     print(event.event ?? "message", event.data ?? "")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default, as ``EventSource/maximumEventSize``.
    ///   - terminator: the event that ends the stream (such as `.data("[DONE]")`): it is not
    ///     yielded, and the sequence ends there without reading further. `nil` by default.
    /// - Returns: the events, which throw ``EventStreamLimitError`` past the limit and the
    ///   errors of these bytes' sequence.
    @inlinable
    public func serverSentEvents(
        maximumEventSize: Int = 16 << 20, terminator: EventSource.Terminator? = nil
    ) -> ServerEventSequence<Self> {
        ServerEventSequence(base: self, reader: .data, maximumEventSize: maximumEventSize, terminator: terminator)
    }

    /// The server-sent events in these bytes, with their comment lines and `retry:` fields:
    /// the elements ``EventSource/DataTask/events(including:)`` delivers, from the `Data` chunks, split anywhere.
    ///
    /// ```swift
    /// for try await element in bytes.serverSentEvents(including: .all) {
    ///     if let comment = element.comment { print("comment:", comment) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - extras: what to deliver besides the events.
    ///   - maximumEventSize: the largest event accepted (its data, in bytes), also bounding
    ///     any line; 16 MiB by default.
    ///   - terminator: the event that ends the stream, not yielded; `nil` by default.
    /// - Returns: the elements (see ``ServerEventElementSequence``).
    @inlinable
    public func serverSentEvents(
        including extras: EventSource.Extras, maximumEventSize: Int = 16 << 20,
        terminator: EventSource.Terminator? = nil
    ) -> ServerEventElementSequence<Self> {
        ServerEventElementSequence(
            base: self, reader: .data, extras: extras, maximumEventSize: maximumEventSize,
            terminator: terminator)
    }
}
