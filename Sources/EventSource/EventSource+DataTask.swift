import RealtimeIO
import RealtimeSync
import RealtimeTime

#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif

extension EventSource {
    /// One request's event stream: iterate ``events()`` to connect and receive events.
    ///
    /// Made by ``EventSource/dataTask(for:)``. ``readyState`` and ``lastMessageId`` may be
    /// read from any task while another iterates.
    ///
    /// - Important: ``events()`` is unicast: only the first call (and only the first
    ///   iterator made from its result) receives the stream; any other yields
    ///   `.error(EventSourceError.alreadyConsumed)` and ends.
    public final class DataTask: Sendable {
        /// The request as given to ``EventSource/dataTask(for:)``.
        public let urlRequest: URLRequest

        let configuration: Configuration
        let state: LockedValue<SharedState>
        /// Set once by ``cancel()``; read for every delivered event.
        let cancelledFlag = OnceFlag()

        struct Configuration: Sendable {
            var decoder: EventDecoder.Kind
            var timeoutInterval: TimeInterval
            var reconnectionPolicy: ReconnectionPolicy
            var transport: Transport
            var maximumEventSize: Int
            /// The longest a connection may last (``EventSource/timeoutIntervalForResource``);
            /// `nil` for no limit.
            var resourceTimeout: TimeAmount?
            /// The event that ends the stream (``EventSource/terminator``).
            var terminator: Terminator?
            /// The certificates `https` requests trust (``EventSource/security``).
            var security: Security = .default
            /// Where the task's timers run (the resource timeout, the reconnection delay): the
            /// loop its native connections use, else one of the process default group
            /// (``EventSource/Transport/placed(on:)``).
            var timers: any TimerSource = EventLoopGroup.shared.next()
        }

        /// Everything shared between the iterating task and other callers, behind one lock.
        struct SharedState: Sendable {
            var machine: EventSourceStateMachine
            var lastMessageId: String
            /// A last event ID the caller set (``lastMessageId``'s setter), for the next request.
            var seededLastEventId: String?
            var consumed = false
            var iteratorMade = false
            /// Cancels the connection attempt, body read or reconnection wait in progress.
            var cancelInFlight: (@Sendable () -> Void)?
            /// The connection of this number outlived ``Configuration/resourceTimeout``.
            var resourceTimedOut = false
            /// Numbers connections, so a late resource timer cannot end a newer one.
            var connectionNumber = 0
            /// The head of the latest response (``response``).
            var response: HTTPURLResponse?
        }

        init(urlRequest: URLRequest, configuration: Configuration) {
            self.urlRequest = urlRequest
            self.configuration = configuration
            let initialId = urlRequest.value(forHTTPHeaderField: "Last-Event-ID") ?? ""
            self.state = LockedValue(
                SharedState(
                    machine: EventSourceStateMachine(
                        policy: configuration.reconnectionPolicy,
                        requestIsIdempotent: EventSourceStateMachine.isIdempotent(method: urlRequest.httpMethod)),
                    lastMessageId: initialId))
        }

        /// The state of the connection: `.none` before ``events()``, then `.connecting`,
        /// `.open`, and `.closed` once finished.
        ///
        /// Settable, as in Recouse's EventSource: setting `.closed` closes the task as
        /// ``cancel()`` does (no `.closed` event follows). The other states are the
        /// connection's to set, so setting them changes nothing.
        public var readyState: ReadyState {
            get { self.state.withLock { $0.machine.readyState } }
            set {
                if newValue == .closed { self.cancel() }
            }
        }

        /// The head of the server's response: its status code, its headers and its URL (after
        /// redirects), or `nil` before one arrived.
        ///
        /// Set when the response head arrives, before the event it leads to: readable from the
        /// `.open` event on, and also when the head is refused (the `.error` of a status other
        /// than 200, or of a 200 that is not an event stream, with its headers, such as a
        /// rate limit's `Retry-After`) or ends the task (204). A reconnection's response
        /// replaces it when it arrives; until then, and after the task ended, it is the last
        /// one. The same on both transports.
        ///
        /// ```swift
        /// for await event in dataTask.events() {
        ///     if case .open = event {
        ///         let sessionId = dataTask.response?.value(forHTTPHeaderField: "Mcp-Session-Id")
        ///     }
        /// }
        /// ```
        public var response: HTTPURLResponse? {
            self.state.withLock { $0.response }
        }

        /// The stream's last event ID: the `id` of the events delivered so far (WHATWG rules
        /// in the default mode: it persists across events, an empty `id` clears it), or the
        /// request's own `Last-Event-ID` header before any. Sent as `Last-Event-ID` when the
        /// task reconnects, and kept after the stream ends so a new task can resume from it.
        ///
        /// Settable, as in Recouse's EventSource: the value set is the last event ID from then
        /// on, sent as `Last-Event-ID` with the next request (the first one when set before
        /// ``events()``, else the next reconnection or ``restart()``) unless a later event
        /// carries its own `id`. An empty string sends no `Last-Event-ID`.
        public var lastMessageId: String {
            get { self.state.withLock { $0.lastMessageId } }
            set {
                self.state.withLock { state in
                    state.lastMessageId = newValue
                    state.seededLastEventId = newValue
                }
            }
        }

        /// Drops the current connection and reconnects now, e.g. after the app learned that
        /// its credentials changed.
        ///
        /// The new request is a reconnection: it carries `Last-Event-ID` (the ``lastMessageId``)
        /// and goes through the reconnection policy's
        /// ``EventSource/ReconnectionPolicy/prepareRequest`` (as attempt 1), so a refreshed
        /// token can be put in. There is no delay and no `.error` event; the sequence delivers
        /// `.open` again once the server accepts the new request. Events already received are
        /// delivered first. The restart starts a new count of failed attempts; if the new
        /// connection fails, the policy decides as after any failure (with
        /// ``EventSource/ReconnectionPolicy/disabled``: `.error`, then `.closed`).
        ///
        /// A restart during a reconnection wait ends the wait; during a connection attempt, it
        /// starts the attempt again. Before ``events()`` is iterated and once the task is
        /// closed it does nothing.
        ///
        /// ```swift
        /// tokens.onChange { dataTask.restart() }
        /// for await event in dataTask.events() { ... }
        /// ```
        public func restart() {
            let cancelInFlight = self.state.withLock { state -> (@Sendable () -> Void)? in
                guard state.machine.requestRestart() else { return nil }
                defer { state.cancelInFlight = nil }
                return state.cancelInFlight
            }
            cancelInFlight?()
        }

        /// The event sequence; connecting starts when it is first iterated.
        ///
        /// Events are decoded from each chunk the transport reads and buffered only until the
        /// iterator takes them (at most one chunk's worth); the connection is read only while
        /// the iterator asks for more, so a slow consumer slows the server down through TCP
        /// instead of growing a buffer.
        ///
        /// Cancelling the iterating task, breaking out of the loop, or calling ``cancel()``
        /// closes the connection at once and ends the sequence without a `.closed` event.
        ///
        /// - Note: Recouse's `events()` returns `AsyncStream<EventType>`; this one returns
        ///   ``EventStream``, an `AsyncSequence` of the same elements, so `for await` loops and
        ///   their `switch`es compile unchanged, while code that names the type needs
        ///   ``EventStream/asyncStream``. The reason is measured (`scripts/bench-sse.sh`, 2,000,000
        ///   events of 64 bytes, release build): an `AsyncStream(unfolding:)` around this
        ///   iterator keeps the pull-based backpressure, but costs about 0.45 µs more client CPU
        ///   per event (0.35 → 0.81 µs end to end over the native transport, 0.30 → 0.75 µs in
        ///   memory; 2.3 to 2.5 times the CPU, past the 0.5 µs target): each `next()` then goes
        ///   through a closure, a lock and a task-cancellation handler, and an event already
        ///   decoded can no longer be handed out without a suspension.
        public func events() -> EventStream {
            EventStream(task: self.consume() ? self : nil)
        }

        /// The event sequence with comment lines and `retry:` fields too, for callers that
        /// want them; connecting starts when it is first iterated.
        ///
        /// Each ``EventSource/StreamElement`` holds one of: an ``EventSource/EventType``
        /// exactly as ``events()`` delivers it, a comment line (with ``EventSource/Extras/comments``)
        /// or a `retry:` field (with ``EventSource/Extras/retry``), all in stream order. A
        /// comment is delivered as soon as its line is read, not with the next event. Comments
        /// and `retry:` come from the built-in WHATWG parser (``EventSource/Mode/default``);
        /// with ``EventSource/Mode/dataOnly`` or a custom parser there are none. A `retry:`
        /// field still sets the reconnection delay as with ``events()``.
        ///
        /// ```swift
        /// for await element in dataTask.events(including: [.comments, .retry]) {
        ///     if let comment = element.comment {
        ///         print("comment:", comment)
        ///     } else if let retry = element.retryInterval {
        ///         print("server asks for a reconnection delay of", retry, "s")
        ///     } else if let event = element.event {
        ///         switch event {
        ///         case .open: print("open")
        ///         case .event(let event): print(event.data ?? "")
        ///         case .error(let error): print(error.localizedDescription)
        ///         case .closed: print("closed")
        ///         }
        ///     }
        /// }
        /// ```
        ///
        /// - Parameter extras: what to deliver besides the events.
        /// - Important: Unicast like ``events()``: a task's stream is consumed by the first call
        ///   of either; a later call yields `.error(EventSourceError.alreadyConsumed)` and ends.
        public func events(including extras: Extras) -> ExtendedEventStream {
            ExtendedEventStream(task: self.consume() ? self : nil, extras: extras)
        }

        /// Marks the stream consumed; `true` for the first call.
        private func consume() -> Bool {
            self.state.withLock { state -> Bool in
                guard !state.consumed else { return false }
                state.consumed = true
                state.machine.start()
                return true
            }
        }

        /// Closes the connection (or stops the reconnection wait) and ends the event sequence.
        /// No `.closed` event follows. ``lastMessageId`` is kept.
        public func cancel() {
            self.cancelledFlag.set()
            let cancelInFlight = self.state.withLock { state -> (@Sendable () -> Void)? in
                state.machine.close()
                defer { state.cancelInFlight = nil }
                return state.cancelInFlight
            }
            cancelInFlight?()
        }

        var isCancelled: Bool { self.cancelledFlag.isSet }

        /// The first iterator of the first ``events()`` result claims the stream.
        func claimIterator() -> Bool {
            self.state.withLock { state in
                guard !state.iteratorMade else { return false }
                state.iteratorMade = true
                return true
            }
        }
    }
}
