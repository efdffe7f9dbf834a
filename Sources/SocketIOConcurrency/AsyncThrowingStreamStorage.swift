import RealtimeSync
import SocketIO

/// The shared state of one ``SocketIOClient/AsyncThrowingStream``: a bounded buffer, the
/// waiting consumers, the terminal result and the termination handler, behind one lock.
///
/// Every input takes the lock, updates ``State``, and returns what to do; resuming waiters,
/// reporting backpressure and calling the termination handler happen after the lock is
/// released.
///
/// With a ``StreamBackpressure``, the buffer reports when it reaches its high-water mark
/// (the consumer fell behind), when it reaches its hard bound (far behind), and when the
/// consumer drained it to the low-water mark, or the stream ended (it caught up): each level
/// change is reported once, and every episode ends caught up.
final class AsyncThrowingStreamStorage<Element: Sendable, Failure: Swift.Error>: Sendable {
    typealias Stream = SocketIOClient.AsyncThrowingStream<Element, Failure>
    typealias Waiter = UnsafeContinuation<Result<Element?, Failure>, Never>

    private enum Phase {
        /// Values may still be yielded.
        case active
        /// The producer finished; the buffer drains, then the result is delivered once.
        case finishing(Result<Void, Failure>)
        /// Nothing more will be delivered; `next` returns `nil`.
        case terminated
    }

    private struct State {
        var phase: Phase = .active
        var buffer = ElementQueue<Element>()
        /// Consumers waiting in `next`; non-empty only while `buffer` is empty.
        var waiters: [Waiter] = []
        var terminationHandler: (@Sendable (Stream.Termination) -> Void)?
        /// Set once the termination happened, so a handler installed later still runs once.
        var termination: Stream.Termination?
        /// How far behind the consumer is: the highest mark the buffer reached since it was
        /// last drained to the low-water mark.
        var level = StreamBackpressure.Level.caughtUp
        /// Values the policy dropped.
        var dropped = 0

        /// Catches up: the level left, when the caller must report it.
        mutating func catchUp() -> StreamBackpressure.Level? {
            defer { self.level = .caughtUp }
            return self.level == .caughtUp ? nil : self.level
        }
    }

    private enum YieldAction {
        case resume(Waiter)
        case result(Stream.Continuation.YieldResult, fellBehind: StreamBackpressure.Change?)
    }

    private let policy: Stream.BufferingPolicy
    private let backpressure: StreamBackpressure?
    private let state = LockedValue(State())

    init(policy: Stream.BufferingPolicy, backpressure: StreamBackpressure? = nil) {
        self.policy = policy
        self.backpressure = backpressure
    }

    /// Values the buffering policy dropped so far.
    var droppedCount: Int { self.state.withLock { $0.dropped } }

    // MARK: Producer inputs

    func yield(_ element: Element) -> Stream.Continuation.YieldResult {
        let action: YieldAction = self.state.withLock { state in
            guard case .active = state.phase else { return .result(.terminated, fellBehind: nil) }
            if !state.waiters.isEmpty {
                return .resume(state.waiters.removeFirst())
            }
            let result: Stream.Continuation.YieldResult
            switch self.policy {
            case .unbounded:
                state.buffer.append(element)
                result = .enqueued(remaining: Int.max)
            case .bufferingOldest(let limit):
                if state.buffer.count < limit {
                    state.buffer.append(element)
                    result = .enqueued(remaining: limit - state.buffer.count)
                } else {
                    result = .dropped(element)
                }
            case .bufferingNewest(let limit):
                if limit <= 0 {
                    result = .dropped(element)
                } else if state.buffer.count >= limit, let oldest = state.buffer.popFirst() {
                    state.buffer.append(element)
                    result = .dropped(oldest)
                } else {
                    state.buffer.append(element)
                    result = .enqueued(remaining: limit - state.buffer.count)
                }
            }
            if case .dropped = result { state.dropped += 1 }
            guard let backpressure = self.backpressure else { return .result(result, fellBehind: nil) }
            let level = backpressure.level(holding: state.buffer.count)
            guard level > state.level else { return .result(result, fellBehind: nil) }
            defer { state.level = level }
            return .result(result, fellBehind: StreamBackpressure.Change(from: state.level, to: level))
        }
        switch action {
        case .resume(let waiter):
            waiter.resume(returning: .success(element))
            return .enqueued(remaining: self.capacity)
        case .result(let result, let fellBehind):
            if let fellBehind { self.backpressure?.report(fellBehind) }
            return result
        }
    }

    func finish(_ result: Result<Void, Failure>) {
        let (waiters, failure, handler, caughtUp): ([Waiter], Failure?, (@Sendable (Stream.Termination) -> Void)?, StreamBackpressure.Level?) = self
            .state.withLock {
                state in
                guard case .active = state.phase else { return ([], nil, nil, nil) }
                let failure: Failure? = if case .failure(let error) = result { error } else { nil }
                state.termination = .finished(failure)
                let handler = state.terminationHandler
                state.terminationHandler = nil
                // Nothing more comes from the socket: it need not wait for this consumer.
                let caughtUp = state.catchUp()
                guard state.buffer.isEmpty, !state.waiters.isEmpty else {
                    state.phase = .finishing(result)
                    return ([], failure, handler, caughtUp)
                }
                // Waiters exist only with an empty buffer: the first gets the result.
                state.phase = .terminated
                let waiters = state.waiters
                state.waiters = []
                return (waiters, failure, handler, caughtUp)
            }
        if let caughtUp { self.backpressure?.report(StreamBackpressure.Change(from: caughtUp, to: .caughtUp)) }
        // The termination handler first (it removes the socket handlers of `on(_:)` streams),
        // so a consumer that sees the end finds nothing of the stream left registered.
        handler?(.finished(failure))
        for (index, waiter) in waiters.enumerated() {
            if index == 0, let failure {
                waiter.resume(returning: .failure(failure))
            } else {
                waiter.resume(returning: .success(nil))
            }
        }
    }

    func setTerminationHandler(_ handler: @escaping @Sendable (Stream.Termination) -> Void) {
        let runNow: Stream.Termination? = self.state.withLock { state in
            if let termination = state.termination { return termination }
            state.terminationHandler = handler
            return nil
        }
        if let runNow { handler(runNow) }
    }

    // MARK: Consumer inputs

    /// The consumer went away (its task was cancelled, or the stream was released).
    func cancel() {
        let (waiters, handler, caughtUp): ([Waiter], (@Sendable (Stream.Termination) -> Void)?, StreamBackpressure.Level?) = self
            .state.withLock { state in
                let caughtUp = state.catchUp()
                if case .terminated = state.phase, state.waiters.isEmpty { return ([], nil, caughtUp) }
                state.phase = .terminated
                state.buffer.removeAll()
                let waiters = state.waiters
                state.waiters = []
                guard state.termination == nil else { return (waiters, nil, caughtUp) }
                state.termination = .cancelled
                let handler = state.terminationHandler
                state.terminationHandler = nil
                return (waiters, handler, caughtUp)
            }
        if let caughtUp { self.backpressure?.report(StreamBackpressure.Change(from: caughtUp, to: .caughtUp)) }
        for waiter in waiters { waiter.resume(returning: .success(nil)) }
        handler?(.cancelled)
    }

    func next() async throws(Failure) -> Element? {
        let result: Result<Element?, Failure> = await withTaskCancellationHandler {
            await withUnsafeContinuation { (waiter: Waiter) in
                var caughtUp: StreamBackpressure.Level?
                let ready: Result<Element?, Failure>? = self.state.withLock { state in
                    if let element = state.buffer.popFirst() {
                        if let backpressure = self.backpressure, state.buffer.count <= backpressure.lowWater {
                            caughtUp = state.catchUp()
                        }
                        return .success(element)
                    }
                    switch state.phase {
                    case .active:
                        state.waiters.append(waiter)
                        return nil
                    case .finishing(let result):
                        state.phase = .terminated
                        switch result {
                        case .success: return .success(nil)
                        case .failure(let error): return .failure(error)
                        }
                    case .terminated:
                        return .success(nil)
                    }
                }
                if let caughtUp { self.backpressure?.report(StreamBackpressure.Change(from: caughtUp, to: .caughtUp)) }
                if let ready { waiter.resume(returning: ready) }
            }
        } onCancel: {
            self.cancel()
        }
        return try result.get()
    }

    private var capacity: Int {
        switch self.policy {
        case .unbounded: Int.max
        case .bufferingOldest(let limit), .bufferingNewest(let limit): max(0, limit)
        }
    }
}

/// The bounds of a stream fed by a socket, and how it tells the socket: a ``Change`` to
/// ``Level/behind`` when the buffer reaches `highWater` values, to ``Level/farBehind`` at
/// `hardWater`, and back to ``Level/caughtUp`` when the consumer drained it to `lowWater` or
/// the stream ended.
struct StreamBackpressure: Sendable {
    /// How far behind a stream's consumer is.
    enum Level: Int, Comparable, Sendable {
        case caughtUp
        /// Past `highWater`: the socket stops reading, unless an awaited ack needs it.
        case behind
        /// Past `hardWater`: the socket stops reading whatever waits.
        case farBehind

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A move from one level to another.
    struct Change: Sendable, Hashable {
        let from: Level
        let to: Level
    }

    let highWater: Int
    let lowWater: Int
    let hardWater: Int
    let report: @Sendable (Change) -> Void

    init(highWater: Int, lowWater: Int, hardWater: Int? = nil, report: @escaping @Sendable (Change) -> Void) {
        self.highWater = highWater
        self.lowWater = lowWater
        self.hardWater = max(hardWater ?? highWater * 16, highWater)
        self.report = report
    }

    /// The level of a buffer holding `count` values, on its way up.
    func level(holding count: Int) -> Level {
        count >= self.hardWater ? .farBehind : count >= self.highWater ? .behind : .caughtUp
    }

    /// A stream of a socket's events: 256 values waiting stop the socket's reading, 128 let
    /// it read again; 4,096 stop it even while an awaited ack is outstanding.
    static func socket(_ report: @escaping @Sendable (Change) -> Void) -> Self {
        Self(highWater: 256, lowWater: 128, hardWater: 4_096, report: report)
    }
}

/// A FIFO queue with amortized O(1) removal from the front.
struct ElementQueue<Element> {
    private var storage: [Element] = []
    private var head = 0

    var count: Int { self.storage.count - self.head }
    var isEmpty: Bool { self.count == 0 }

    mutating func append(_ element: Element) {
        self.storage.append(element)
    }

    mutating func popFirst() -> Element? {
        guard self.head < self.storage.count else { return nil }
        let element = self.storage[self.head]
        self.head += 1
        if self.head >= 64, self.head * 2 >= self.storage.count {
            self.storage.removeFirst(self.head)
            self.head = 0
        }
        return element
    }

    mutating func removeAll() {
        self.storage.removeAll()
        self.head = 0
    }
}
