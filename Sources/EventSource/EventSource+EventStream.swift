extension EventSource.EventStream {
    /// The same events as an `AsyncStream`, the type Recouse's `events()` returns, for code
    /// that names it (`let stream: AsyncStream<EventSource.EventType> = task.events().asyncStream`).
    ///
    /// Built with `AsyncStream(unfolding:)`: still pulled on demand (the connection is read only
    /// while the stream is iterated), but each event costs more CPU than iterating the
    /// ``EventSource/EventStream`` itself (see ``EventSource/DataTask/events()``). Cancelling the
    /// iterating task closes the connection.
    public var asyncStream: AsyncStream<EventSource.EventType> {
        let box = IteratorBox(self.makeAsyncIterator())
        return AsyncStream(unfolding: { await box.next() })
    }
}

/// Holds an event stream's iterator for `AsyncStream(unfolding:)`, whose closure must be
/// `Sendable`.
private final class IteratorBox: @unchecked Sendable {
    // @unchecked: an AsyncStream calls its unfolding closure for one `next()` at a time, so the
    // iterator is never used concurrently.
    private var iterator: EventSource.EventStream.Iterator

    init(_ iterator: EventSource.EventStream.Iterator) {
        self.iterator = iterator
    }

    func next() async -> EventSource.EventType? {
        await self.iterator.next()
    }
}

extension EventSource {
    /// The events of a ``DataTask``: an `AsyncSequence` that never throws (failures arrive as
    /// ``EventType/error(_:)``). Unicast: see ``DataTask/events()``.
    public struct EventStream: AsyncSequence, Sendable {
        /// The elements: what ``DataTask/events()`` delivers.
        public typealias Element = EventType
        /// The stream never throws: failures arrive as ``EventType/error(_:)``.
        public typealias Failure = Never

        let task: DataTask?

        /// Makes the iterator; the first one made from the task's first ``DataTask/events()`` result
        /// receives the stream, any other yields `.error(EventSourceError.alreadyConsumed)` and ends.
        public func makeAsyncIterator() -> Iterator {
            guard let task = self.task, task.claimIterator() else {
                return Iterator(driver: nil)
            }
            return Iterator(driver: EventStreamDriver(task: task))
        }

        /// Iterates an ``EventStream``. Dropping it (leaving the loop) closes the connection.
        public struct Iterator: AsyncIteratorProtocol {
            /// The elements: what ``DataTask/events()`` delivers.
            public typealias Element = EventType
            /// The iterator never throws: failures arrive as ``EventType/error(_:)``.
            public typealias Failure = Never

            @usableFromInline let driver: EventStreamDriver?
            private var reportedAlreadyConsumed = false

            init(driver: EventStreamDriver?) {
                self.driver = driver
            }

            // Inlinable: an event already decoded is returned inside the caller's own async
            // function, without the async call frame (task allocator) of a non-inlined `next`.
            /// The next event; `nil` once the stream ended (after `.closed`) or the task was cancelled.
            ///
            /// Connects on the first call, then reads the connection only while it is called.
            @inlinable
            public mutating func next() async -> EventType? {
                if let event = self.driver?.nextBuffered() { return event }
                return await self.nextSlow()
            }

            /// The next event, in the caller's isolation; `nil` once the stream ended or the task was
            /// cancelled. What `for await` calls from iOS 18 / macOS 15 on; see ``next()``.
            @inlinable
            public mutating func next(isolation actor: isolated (any Actor)?) async -> EventType? {
                // Events of the current chunk are handed out without another suspension point.
                if let event = self.driver?.nextBuffered() { return event }
                return await self.nextSlow()
            }

            /// Reads, decodes or waits for the next event (or reports an already-consumed stream).
            @usableFromInline
            nonisolated(nonsending) mutating func nextSlow() async -> EventType? {
                guard let driver = self.driver else { return self.alreadyConsumed() }
                return await driver.next()
            }

            private mutating func alreadyConsumed() -> EventType? {
                guard !self.reportedAlreadyConsumed else { return nil }
                self.reportedAlreadyConsumed = true
                return .error(EventSourceError.alreadyConsumed)
            }
        }
    }
}
