package import EngineIOProtocol
package import Foundation
package import RealtimeHTTP
package import RealtimeSync

/// The sticky-session cookie jar of a ``SocketEngine`` (RealtimeHTTP's RFC 6265 store; named
/// here because `SocketEngine.swift` sees Foundation's `HTTPCookie` in its public API).
package typealias EngineCookieStore = HTTPCookieStore

/// The engine's current connection attempt (one `connect()` until its close): the protocol's
/// ``EngineClientStateMachine`` and, apart, each driver's handles that carry out its actions:
/// ``PollingHandles`` (the GET and POST in flight) for the polling driver
/// (`SocketEngine+Polling.swift`), ``WebSocketHandles`` (the connection, its receive task,
/// send queue and writer) for the WebSocket driver (`SocketEngine+WebSocket.swift`), and the
/// heartbeat timer.
///
/// Lives inside ``SocketEngine``'s lock; ``reset(options:)`` starts the next attempt.
/// `generation` numbers the attempts, so a task of an older attempt recognises itself as
/// stale and stops without side effects.
package struct EngineConnectionAttempt {
    /// A write's completion, due once the transport send carrying write `writeID` is done
    /// (the machine says which send carries it: ``EngineClientAction/carriesWrites(through:)``).
    package struct PendingCompletion {
        package var writeID: Int
        package var completion: UncheckedSendable<() -> Void>
    }

    /// What a new attempt or a close hands back to be torn down outside the lock.
    package struct Teardown {
        package var tasks: [Task<Void, Never>] = []
        package var timer: SocketTimer?
        package var webSocket: (any WebSocketConnection)?
        /// The close of a replaced polling attempt that must still reach the server
        /// (``EnginePollingDriver/EndingClose``), from ``EngineConnectionAttempt/reset(options:)``.
        package var pollingClose: EnginePollingDriver.EndingClose?
    }

    /// The text of a polling URL up to the value of its cache-defeating `t` parameter, and of
    /// its request target (path and query): parsing the base URL once per session instead of
    /// once per request, and never reading a request's target back out of its URL.
    package struct PollingURLPrefix {
        package var sid: String
        package var text: String
        /// ``text``'s request target in origin form: percent-encoded path (at least `/`), `?`
        /// and query, up to the `t` value; `nil` when the URL could not be built from its parts
        /// (``text`` is then the base URL's).
        package var target: String?

        package init(base: URL, sid: String) {
            self.sid = sid
            var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
            // Engine.IO's rule (`EngineQuery`): `&sid=…`, then the counter's parameter last, its
            // value appended per request. Appended as text: re-setting `queryItems` would decode
            // and re-encode the connectParams (a `%2B` would go out as a raw `+`).
            components.percentEncodedQuery = EngineQuery.sessionPrefix(
                base: components.percentEncodedQuery ?? "", transport: .polling, sid: sid)
            components.fragment = nil
            guard let url = components.url else {
                self.text = base.absoluteString
                self.target = nil
                return
            }
            self.text = url.absoluteString
            self.target = url.httpRequestTarget
        }
    }

    /// What the polling driver holds for an attempt: its requests in flight (one GET, one
    /// POST at most, as the machine asks) and the URL it builds them from.
    package struct PollingHandles {
        package var getTask: Task<Void, Never>?
        package var postTask: Task<Void, Never>?
        /// The counter of the cache-defeating `t` parameter.
        package var counter = 0
        /// The polling URL up to the `t` value, for ``counter``; rebuilt when the sid changes.
        package var urlPrefix: PollingURLPrefix?

        /// Takes the requests in flight, to be cancelled.
        package mutating func takeTasks() -> [Task<Void, Never>] {
            defer {
                self.getTask = nil
                self.postTask = nil
            }
            return [self.getTask, self.postTask].compactMap { $0 }
        }
    }

    /// What the WebSocket driver holds for an attempt: the connection, the task that opens it
    /// and then receives, and its sends (one queue, one writer).
    package struct WebSocketHandles {
        /// Opens the WebSocket, then receives on it.
        package var task: Task<Void, Never>?
        package var connection: (any WebSocketConnection)?
        /// The sends: one queue, one writer (see `SocketEngine.enqueueWebSocket`).
        package var sendQueue = EngineWebSocketSendQueue()
        /// The writer's task while the writer waits for the connection (the queue has one
        /// writer, so one task at most); cancelled with the attempt unless a client close
        /// still goes out.
        package var writerTask: Task<Void, Never>?

        /// Takes the tasks, and the connection to be closed.
        ///
        /// - Parameter keepingWriter: leave the connection, its writer and its send queue
        ///   alone, so a queued close packet and the queued close still go out (a client
        ///   close); the writer closes the connection after them.
        package mutating func take(keepingWriter: Bool) -> (tasks: [Task<Void, Never>], connection: (any WebSocketConnection)?) {
            let receiver = self.task
            self.task = nil
            guard !keepingWriter else { return ([receiver].compactMap { $0 }, nil) }
            defer {
                self.writerTask = nil
                self.connection = nil
                self.sendQueue.fail()
            }
            return ([receiver, self.writerTask].compactMap { $0 }, self.connection)
        }
    }

    package init() {}

    package private(set) var generation = 0
    package var machine = EngineClientStateMachine()
    /// Whether the client was told the engine closed: the one fact behind upstream's
    /// `closed` / `invalidated` and the "tell the client once" rule.
    package enum CloseReport: Equatable {
        /// Before the first `connect()`: nothing to report, and not closed.
        case notConnected
        /// A connection attempt runs: its close is still to be reported.
        case pending
        /// The client was told (or `disconnect(reason:)` ran): closed.
        case reported
    }

    /// See ``CloseReport``; ``reset(options:)`` makes it ``CloseReport/pending``.
    package var closeReport = CloseReport.notConnected

    /// The id of the next write (``EngineClientStateMachine/send(_:writeID:)``).
    package var nextWriteID = 0
    /// Completions of writes handed to the machine, oldest first.
    package var completions: [PendingCompletion] = []

    /// The polling driver's handles (`SocketEngine+Polling.swift`).
    package var polling = PollingHandles()
    /// The WebSocket driver's handles (`SocketEngine+WebSocket.swift`).
    package var webSocket = WebSocketHandles()
    /// The one heartbeat timer the machine keeps armed.
    package var heartbeatTimer: SocketTimer?

    /// The options this attempt was started with (`nil` before the first `connect()`).
    package var options: EngineRequestOptions?

    /// Starts a new attempt with a fresh machine and `options`; returns the previous
    /// attempt's resources.
    ///
    /// A client close of the previous attempt that is still under way goes on
    /// (``EngineClientStateMachine/abandon()``): its requests come back as the teardown's
    /// ``Teardown/pollingClose`` instead of with the tasks to cancel, so the server sees the
    /// close before this attempt's handshake.
    package mutating func reset(options: EngineRequestOptions) -> Teardown {
        let pollingClose = EnginePollingDriver.EndingClose.take(from: &self)
        var teardown = self.takeResources()
        teardown.pollingClose = pollingClose
        self.generation += 1
        self.options = options
        self.polling = PollingHandles()
        self.machine = EngineClientStateMachine(configuration: options.machine)
        self.closeReport = .pending
        self.completions = []
        self.webSocket = WebSocketHandles()
        return teardown
    }

    /// Takes every task and the WebSocket, to be cancelled and closed.
    ///
    /// - Parameter keepingWebSocketWriter: leave the WebSocket and its send queue alone, so a
    ///   queued close packet and the queued close still go out (a client close); the writer
    ///   closes the WebSocket after them.
    package mutating func takeResources(keepingWebSocketWriter: Bool = false) -> Teardown {
        let timer = self.heartbeatTimer
        self.heartbeatTimer = nil
        var tasks = self.polling.takeTasks()
        let (webSocketTasks, connection) = self.webSocket.take(keepingWriter: keepingWebSocketWriter)
        tasks += webSocketTasks
        return Teardown(tasks: tasks, timer: timer, webSocket: connection)
    }

    /// Queues the completion of write `writeID`.
    package mutating func addCompletion(_ completion: @escaping () -> Void, writeID: Int) {
        self.completions.append(PendingCompletion(writeID: writeID, completion: UncheckedSendable(completion)))
    }

    /// Completions of the writes up to and including `writeID`, oldest first.
    package mutating func completions(through writeID: Int) -> [UncheckedSendable<() -> Void>] {
        let count = self.completions.firstIndex(where: { $0.writeID > writeID }) ?? self.completions.count
        defer { self.completions.removeFirst(count) }
        return self.completions.prefix(count).map(\.completion)
    }
}
