public import SocketIO

extension SocketIOClient {
    /// An asynchronous sequence of socket values whose failure is typed.
    ///
    /// The standard library's `AsyncThrowingStream` can only be built with
    /// `Failure == any Error`, so iterating it loses the error type. This stream keeps it:
    /// its iterator's `next(isolation:)` is `async throws(Failure)`, so
    /// `for try await` over a `SocketIOClient.AsyncThrowingStream<_, SocketIOClient.Error>`
    /// throws a `SocketIOClient.Error` with no casting.
    ///
    /// ```swift
    /// do {
    ///     for try await payload in socket.on("message:new") {
    ///         print(payload)
    ///     }
    /// } catch {
    ///     // `error` is a `SocketIOClient.Error` here.
    /// }
    /// ```
    ///
    /// ## Buffering
    /// Values the producer yields while no consumer is waiting are kept in a buffer whose bound
    /// is the ``BufferingPolicy`` given at creation. When the buffer is full,
    /// ``BufferingPolicy/bufferingNewest(_:)`` drops the oldest buffered value and
    /// ``BufferingPolicy/bufferingOldest(_:)`` drops the value being yielded;
    /// ``Continuation/yield(_:)`` reports the drop. A terminal failure is kept apart from the
    /// buffer, so it is never dropped: the consumer first receives every buffered value, then
    /// the failure.
    ///
    /// ## Termination
    /// The termination handler (``Continuation/onTermination(_:)``) runs exactly once, when the
    /// first of these happens: the producer finishes (with or without a failure), the consuming
    /// task is cancelled while waiting in `next`, or the last copy of the stream and of its
    /// iterators is released.
    ///
    /// - Important: The stream is unicast: each value goes to one waiting `next` call. It is
    ///   `Sendable`; the continuation may be used from any thread.
    public struct AsyncThrowingStream<Element: Sendable, Failure: Swift.Error>: AsyncSequence, Sendable {
        /// How many values the stream keeps while the consumer is not waiting, and which it drops.
        public enum BufferingPolicy: Sendable, Hashable {
            /// Keep every value (memory grows with a slow consumer).
            case unbounded
            /// Keep the first `limit` values; a new value is dropped while the buffer is full.
            case bufferingOldest(Int)
            /// Keep the latest `limit` values; the oldest buffered value is dropped for a new one.
            case bufferingNewest(Int)
        }

        /// Why a stream ended, passed to its termination handler.
        public enum Termination: Sendable {
            /// The producer finished it, with a failure or without (`nil`).
            case finished(Failure?)
            /// The consumer went away: its task was cancelled or the stream was released.
            case cancelled
        }

        /// The producer side of a ``SocketIOClient/AsyncThrowingStream``.
        public struct Continuation: Sendable {
            /// The outcome of ``yield(_:)``.
            public enum YieldResult: Sendable {
                /// The value was delivered or buffered; `remaining` is the space left in the buffer.
                case enqueued(remaining: Int)
                /// The buffer was full: this value (the yielded one or the oldest one) was dropped.
                case dropped(Element)
                /// The stream has ended; the value was discarded.
                case terminated
            }

            let storage: AsyncThrowingStreamStorage<Element, Failure>

            /// Delivers `element` to a waiting consumer, or buffers it under the stream's policy.
            @discardableResult
            public func yield(_ element: Element) -> YieldResult {
                self.storage.yield(element)
            }

            /// Ends the stream normally; the consumer gets the buffered values, then `nil`.
            public func finish() {
                self.storage.finish(.success(()))
            }

            /// Ends the stream with `error`; the consumer gets the buffered values, then `error`.
            public func finish(throwing error: Failure) {
                self.storage.finish(.failure(error))
            }

            /// Sets the handler called exactly once when the stream ends (see the type's
            /// discussion). If the stream has already ended, the handler runs at once.
            public func onTermination(_ handler: @escaping @Sendable (Termination) -> Void) {
                self.storage.setTerminationHandler(handler)
            }
        }

        /// The iterator of a ``SocketIOClient/AsyncThrowingStream``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let consumer: AsyncThrowingStreamConsumer<Element, Failure>

            /// The next value, `nil` once the stream finished or the task was cancelled.
            ///
            /// - Throws: The stream's `Failure`, once, after the buffered values.
            public mutating func next(
                isolation actor: isolated (any Actor)? = #isolation
            ) async throws(Failure) -> Element? {
                try await self.consumer.storage.next()
            }

            /// The next value, `nil` once the stream finished or the task was cancelled.
            public mutating func next() async throws(Failure) -> Element? {
                try await self.consumer.storage.next()
            }
        }

        let consumer: AsyncThrowingStreamConsumer<Element, Failure>

        /// Creates a stream; `build` receives the continuation that feeds it.
        ///
        /// - Parameters:
        ///   - elementType: The element type (for inference at the call site).
        ///   - bufferingPolicy: How many values to keep while the consumer is not waiting.
        ///   - build: Called once, synchronously, with the stream's continuation.
        public init(
            _ elementType: Element.Type = Element.self,
            bufferingPolicy: BufferingPolicy = .unbounded,
            _ build: (Continuation) -> Void
        ) {
            let storage = AsyncThrowingStreamStorage<Element, Failure>(policy: bufferingPolicy)
            self.consumer = AsyncThrowingStreamConsumer(storage: storage)
            build(Continuation(storage: storage))
        }

        /// A stream fed by a socket: with `.unbounded`, the socket stops reading while
        /// `backpressure`'s bound of values waits (``StreamBackpressure``).
        init(
            bufferingPolicy: BufferingPolicy, backpressure: StreamBackpressure?,
            _ build: (Continuation) -> Void
        ) {
            let storage = AsyncThrowingStreamStorage<Element, Failure>(
                policy: bufferingPolicy, backpressure: bufferingPolicy == .unbounded ? backpressure : nil)
            self.consumer = AsyncThrowingStreamConsumer(storage: storage)
            build(Continuation(storage: storage))
        }

        /// How many values the stream's ``BufferingPolicy`` dropped so far: always 0 with
        /// `.unbounded` (the default of the socket's streams), which drops nothing.
        ///
        /// ```swift
        /// let latest = socket.on("price", bufferingPolicy: .bufferingNewest(1))
        /// // ...
        /// print("skipped", latest.droppedCount, "stale prices")
        /// ```
        public var droppedCount: Int { self.consumer.storage.droppedCount }

        /// Creates a stream and returns it with its continuation.
        public static func makeStream(
            of elementType: Element.Type = Element.self,
            throwing failureType: Failure.Type = Failure.self,
            bufferingPolicy: BufferingPolicy = .unbounded
        ) -> (stream: Self, continuation: Continuation) {
            let storage = AsyncThrowingStreamStorage<Element, Failure>(policy: bufferingPolicy)
            return (Self(consumer: AsyncThrowingStreamConsumer(storage: storage)), Continuation(storage: storage))
        }

        private init(consumer: AsyncThrowingStreamConsumer<Element, Failure>) {
            self.consumer = consumer
        }

        /// Makes the iterator. The stream is unicast: iterate it from one task.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(consumer: self.consumer)
        }
    }
}

/// The consumer side's lifetime: when the last stream and iterator copy is released, the
/// stream is cancelled so that the producer's termination handler runs (and unregisters).
final class AsyncThrowingStreamConsumer<Element: Sendable, Failure: Swift.Error>: Sendable {
    let storage: AsyncThrowingStreamStorage<Element, Failure>

    init(storage: AsyncThrowingStreamStorage<Element, Failure>) {
        self.storage = storage
    }

    deinit {
        self.storage.cancel()
    }
}

extension SocketIOClient.AsyncThrowingStream.Continuation.YieldResult: Equatable where Element: Equatable {}
