import RealtimeSync
import SocketIO

/// The shared state of one ``SocketIOClient/AsyncThrowingStream``: a bounded buffer, the
/// waiting consumers, the terminal result and the termination handler, behind one lock.
///
/// Every input takes the lock, updates ``State``, and returns what to do; resuming waiters and
/// calling the termination handler happen after the lock is released.
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
    }

    private enum YieldAction {
        case resume(Waiter)
        case result(Stream.Continuation.YieldResult)
    }

    private let policy: Stream.BufferingPolicy
    private let state = LockedValue(State())

    init(policy: Stream.BufferingPolicy) {
        self.policy = policy
    }

    // MARK: Producer inputs

    func yield(_ element: Element) -> Stream.Continuation.YieldResult {
        let action: YieldAction = self.state.withLock { state in
            guard case .active = state.phase else { return .result(.terminated) }
            if !state.waiters.isEmpty {
                return .resume(state.waiters.removeFirst())
            }
            switch self.policy {
            case .unbounded:
                state.buffer.append(element)
                return .result(.enqueued(remaining: Int.max))
            case .bufferingOldest(let limit):
                guard state.buffer.count < limit else { return .result(.dropped(element)) }
                state.buffer.append(element)
                return .result(.enqueued(remaining: limit - state.buffer.count))
            case .bufferingNewest(let limit):
                guard limit > 0 else { return .result(.dropped(element)) }
                if state.buffer.count >= limit, let oldest = state.buffer.popFirst() {
                    state.buffer.append(element)
                    return .result(.dropped(oldest))
                }
                state.buffer.append(element)
                return .result(.enqueued(remaining: limit - state.buffer.count))
            }
        }
        switch action {
        case .resume(let waiter):
            waiter.resume(returning: .success(element))
            return .enqueued(remaining: self.capacity)
        case .result(let result):
            return result
        }
    }

    func finish(_ result: Result<Void, Failure>) {
        let (waiters, failure, handler): ([Waiter], Failure?, (@Sendable (Stream.Termination) -> Void)?) =
            self.state.withLock { state in
                guard case .active = state.phase else { return ([], nil, nil) }
                let failure: Failure? = if case .failure(let error) = result { error } else { nil }
                state.termination = .finished(failure)
                let handler = state.terminationHandler
                state.terminationHandler = nil
                guard state.buffer.isEmpty, !state.waiters.isEmpty else {
                    state.phase = .finishing(result)
                    return ([], failure, handler)
                }
                // Waiters exist only with an empty buffer: the first gets the result.
                state.phase = .terminated
                let waiters = state.waiters
                state.waiters = []
                return (waiters, failure, handler)
            }
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
        let (waiters, handler): ([Waiter], (@Sendable (Stream.Termination) -> Void)?) = self.state.withLock { state in
            if case .terminated = state.phase, state.waiters.isEmpty { return ([], nil) }
            state.phase = .terminated
            state.buffer.removeAll()
            let waiters = state.waiters
            state.waiters = []
            guard state.termination == nil else { return (waiters, nil) }
            state.termination = .cancelled
            let handler = state.terminationHandler
            state.terminationHandler = nil
            return (waiters, handler)
        }
        for waiter in waiters { waiter.resume(returning: .success(nil)) }
        handler?(.cancelled)
    }

    func next() async throws(Failure) -> Element? {
        let result: Result<Element?, Failure> = await withTaskCancellationHandler {
            await withUnsafeContinuation { (waiter: Waiter) in
                let ready: Result<Element?, Failure>? = self.state.withLock { state in
                    if let element = state.buffer.popFirst() { return .success(element) }
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
