#if canImport(FoundationNetworking)
public import FoundationNetworking
import Foundation
#else
public import Foundation
#endif
import RealtimeSync
import Synchronization

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
        /// Set once by ``cancel()``; read for every delivered event, so it is an atomic.
        let cancelledFlag = Atomic<Bool>(false)

        struct Configuration: Sendable {
            var decoder: EventDecoder.Kind
            var timeoutInterval: TimeInterval
            var reconnectionPolicy: ReconnectionPolicy
            var transport: Transport
            var maximumEventSize: Int
        }

        /// Everything shared between the iterating task and other callers, behind one lock.
        struct SharedState: Sendable {
            var machine: EventSourceStateMachine
            var lastMessageId: String
            var consumed = false
            var iteratorMade = false
            /// Cancels the connection attempt, body read or reconnection wait in progress.
            var cancelInFlight: (@Sendable () -> Void)?
        }

        init(urlRequest: URLRequest, configuration: Configuration) {
            self.urlRequest = urlRequest
            self.configuration = configuration
            let initialId = urlRequest.value(forHTTPHeaderField: "Last-Event-ID") ?? ""
            self.state = LockedValue(SharedState(machine: EventSourceStateMachine(policy: configuration.reconnectionPolicy),
                                           lastMessageId: initialId))
        }

        /// The state of the connection: `.none` before ``events()``, then `.connecting`,
        /// `.open`, and `.closed` once finished.
        public var readyState: ReadyState {
            self.state.withLock { $0.machine.readyState }
        }

        /// The stream's last event ID: the `id` of the events delivered so far (WHATWG rules
        /// in the default mode: it persists across events, an empty `id` clears it), or the
        /// request's own `Last-Event-ID` header before any. Sent as `Last-Event-ID` when the
        /// task reconnects, and kept after the stream ends so a new task can resume from it.
        public var lastMessageId: String {
            self.state.withLock { $0.lastMessageId }
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
        public func events() -> EventStream {
            let isFirst = self.state.withLock { state -> Bool in
                guard !state.consumed else { return false }
                state.consumed = true
                state.machine.start()
                return true
            }
            return EventStream(task: isFirst ? self : nil)
        }

        /// Closes the connection (or stops the reconnection wait) and ends the event sequence.
        /// No `.closed` event follows. ``lastMessageId`` is kept.
        public func cancel() {
            self.cancelledFlag.store(true, ordering: .releasing)
            let cancelInFlight = self.state.withLock { state -> (@Sendable () -> Void)? in
                state.machine.close()
                defer { state.cancelInFlight = nil }
                return state.cancelInFlight
            }
            cancelInFlight?()
        }

        var isCancelled: Bool { self.cancelledFlag.load(ordering: .acquiring) }

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
