public import Foundation

extension EventSource {
    /// What ``DataTask/events(including:)`` delivers besides the events.
    public struct Extras: OptionSet, Sendable, Hashable {
        /// The bits of the set.
        public let rawValue: Int

        /// Creates a set from its bits (see ``comments`` and ``retry``).
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Comment lines (`: text`), as ``StreamElement/comment``.
        public static let comments = Extras(rawValue: 1 << 0)
        /// `retry:` fields made of digits, as ``StreamElement/retry``.
        public static let retry = Extras(rawValue: 1 << 1)
        /// Everything there is.
        public static let all: Extras = [.comments, .retry]
    }

    /// One element of ``DataTask/events(including:)``: an event, a comment line or a
    /// `retry:` field. Exactly one of the properties is set.
    ///
    /// A struct rather than an enum, so it can carry more kinds of elements later without
    /// breaking code that inspects it.
    public struct StreamElement: Sendable {
        /// An event exactly as ``DataTask/events()`` would deliver it.
        public let event: EventType?
        /// A comment line's text: what follows the colon, one leading space removed
        /// (`: keep-alive` gives `keep-alive`, `:hello` gives `hello`).
        public let comment: String?
        /// The reconnection time a `retry:` field asks for, in seconds (its digits are
        /// milliseconds: `retry: 2500` gives `2.5`).
        public let retryInterval: TimeInterval?

        /// The reconnection time a `retry:` field asks for, as a `Duration` (its digits, in
        /// milliseconds). ``retryInterval`` carries the same value on every supported OS.
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        public var retry: Duration? {
            self.retryMilliseconds.map { .milliseconds($0) }
        }

        /// The field's digits, saturated to `Int64`.
        let retryMilliseconds: Int64?

        init(event: EventType) {
            self.event = event
            self.comment = nil
            self.retryMilliseconds = nil
            self.retryInterval = nil
        }

        init(_ extra: EventBuffer.Extra) {
            self.event = nil
            switch extra {
            case .comment(let text):
                self.comment = text
                self.retryMilliseconds = nil
                self.retryInterval = nil
            case .retry(let milliseconds):
                self.comment = nil
                self.retryMilliseconds = Int64(clamping: milliseconds)
                self.retryInterval = Double(Int64(clamping: milliseconds)) / 1000
            }
        }
    }

    /// The elements of ``DataTask/events(including:)``: an `AsyncSequence` that never
    /// throws. Unicast: see ``DataTask/events()``.
    public struct ExtendedEventStream: AsyncSequence, Sendable {
        /// The elements: events, comments and `retry:` fields.
        public typealias Element = StreamElement
        /// The stream never throws: failures arrive as ``EventType/error(_:)`` events.
        public typealias Failure = Never

        let task: DataTask?
        let extras: Extras

        /// Makes the iterator; only the first one of the task's stream receives it (see
        /// ``DataTask/events(including:)``).
        public func makeAsyncIterator() -> Iterator {
            guard let task = self.task, task.claimIterator() else {
                return Iterator(driver: nil)
            }
            return Iterator(driver: EventStreamDriver(task: task, extras: self.extras))
        }

        /// Iterates an ``ExtendedEventStream``. Dropping it (leaving the loop) closes the connection.
        public struct Iterator: AsyncIteratorProtocol {
            /// The elements: events, comments and `retry:` fields.
            public typealias Element = StreamElement
            /// The iterator never throws: failures arrive as ``EventType/error(_:)`` events.
            public typealias Failure = Never

            let driver: EventStreamDriver?
            private var reportedAlreadyConsumed = false

            init(driver: EventStreamDriver?) {
                self.driver = driver
            }

            /// The next element; `nil` once the stream ended or the task was cancelled.
            public mutating func next() async -> StreamElement? {
                await self.next(isolation: nil)
            }

            /// The next element, in the caller's isolation; `nil` once the stream ended or the task was
            /// cancelled.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> StreamElement? {
                guard let driver = self.driver else {
                    guard !self.reportedAlreadyConsumed else { return nil }
                    self.reportedAlreadyConsumed = true
                    return StreamElement(event: .error(EventSourceError.alreadyConsumed))
                }
                return await driver.nextElement()
            }
        }
    }
}
