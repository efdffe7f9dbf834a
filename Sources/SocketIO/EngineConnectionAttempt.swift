import EngineIOProtocol
import Foundation
import RealtimeHTTP

/// The engine's current connection attempt (one `connect()` until its close): the protocol's
/// ``EngineClientStateMachine``, the WebSocket send queue, and the I/O handles that carry out
/// their actions (the polling requests, the WebSocket and its receive task, the heartbeat timer).
///
/// Lives inside ``SocketEngine``'s lock; ``reset(configuration:)`` starts the next attempt.
/// `generation` numbers the attempts, so a task of an older attempt recognises itself as
/// stale and stops without side effects.
struct EngineConnectionAttempt {
    /// A write's completion, due once the transport send carrying write `writeID` is done
    /// (the machine says which send carries it: ``EngineClientAction/carriesWrites(through:)``).
    struct PendingCompletion {
        var writeID: Int
        var completion: UncheckedSendable<() -> ()>
    }

    /// What a new attempt or a close hands back to be torn down outside the lock.
    struct Teardown {
        /// The attempt torn down (its WebSocket's close is kept under this number).
        var generation: Int
        var tasks: [Task<Void, Never>] = []
        var timer: SocketTimer?
        var webSocket: (any WebSocketConnection)?
    }

    /// The text of a polling URL up to the value of its cache-defeating `t` parameter:
    /// parsing the base URL once per session instead of once per request.
    struct PollingURLPrefix {
        var sid: String
        var text: String

        init(base: URL, sid: String) {
            self.sid = sid
            var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
            // Appended as text: re-setting `queryItems` would decode and re-encode the
            // connectParams (a `%2B` would go out as a raw `+`).
            var query = components.percentEncodedQuery
            if !sid.isEmpty {
                query = EngineQueryEncoding.appending("sid", sid, to: query)
            }
            // The counter's parameter last, its value appended per request.
            components.percentEncodedQuery = EngineQueryEncoding.appending("t", "", to: query)
            components.fragment = nil
            self.text = components.url?.absoluteString ?? base.absoluteString
        }
    }

    private(set) var generation = 0
    var machine = EngineClientStateMachine()
    /// `true` once the client was told the engine closed (or before the first connect).
    var notifiedClose = true

    /// The id of the next write (``EngineClientStateMachine/send(_:writeID:)``).
    var nextWriteID = 0
    /// Completions of writes handed to the machine, oldest first.
    var completions: [PendingCompletion] = []

    var getTask: Task<Void, Never>?
    var postTask: Task<Void, Never>?
    /// The one heartbeat timer the machine keeps armed.
    var heartbeatTimer: SocketTimer?
    /// Opens the WebSocket, then receives on it.
    var webSocketTask: Task<Void, Never>?
    var webSocket: (any WebSocketConnection)?
    /// The WebSocket's sends: one queue, one writer (see `SocketEngine.enqueueWebSocket`).
    var sendQueue = EngineWebSocketSendQueue()
    /// The writer's task while the writer waits for the connection (the queue has one writer,
    /// so one task at most); cancelled with the attempt unless a client close still goes out.
    var webSocketWriterTask: Task<Void, Never>?

    var pollCounter = 0
    /// The polling URL up to the `t` value, for ``pollCounter``; rebuilt when the sid changes.
    var pollingURLPrefix: PollingURLPrefix?

    /// Cookies the server set during this engine's life (`name` → `value`), sent back on the
    /// WebSocket upgrade (the HTTP client keeps its own) so sticky-session load balancers
    /// keep us on one node.
    var stickyCookies: [(name: String, value: String)] = []

    /// The options this attempt was started with (`nil` before the first `connect()`).
    var options: SocketEngineOptions.Snapshot?

    /// Starts a new attempt with a fresh machine and `options`; returns the previous
    /// attempt's resources.
    mutating func reset(options: SocketEngineOptions.Snapshot) -> Teardown {
        let teardown = self.takeResources()
        self.generation += 1
        self.options = options
        self.pollingURLPrefix = nil
        self.machine = EngineClientStateMachine(configuration: options.machine)
        self.notifiedClose = false
        self.completions = []
        self.sendQueue = EngineWebSocketSendQueue()
        return teardown
    }

    /// Takes every task and the WebSocket, to be cancelled and closed.
    ///
    /// - Parameter keepingWebSocketWriter: leave the WebSocket and its send queue alone, so a
    ///   queued close packet and the queued close still go out (a client close); the writer
    ///   closes the WebSocket after them.
    mutating func takeResources(keepingWebSocketWriter: Bool = false) -> Teardown {
        let tasks = [self.getTask, self.postTask, self.webSocketTask].compactMap { $0 }
        let timer = self.heartbeatTimer
        self.getTask = nil
        self.postTask = nil
        self.heartbeatTimer = nil
        self.webSocketTask = nil
        guard !keepingWebSocketWriter else {
            return Teardown(generation: self.generation, tasks: tasks, timer: timer, webSocket: nil)
        }
        let teardown = Teardown(generation: self.generation,
                                tasks: tasks + [self.webSocketWriterTask].compactMap { $0 }, timer: timer,
                                webSocket: self.webSocket)
        self.webSocketWriterTask = nil
        self.webSocket = nil
        self.sendQueue.fail()
        return teardown
    }

    /// Queues the completion of write `writeID`.
    mutating func addCompletion(_ completion: @escaping () -> (), writeID: Int) {
        self.completions.append(PendingCompletion(writeID: writeID, completion: UncheckedSendable(completion)))
    }

    /// Completions of the writes up to and including `writeID`, oldest first.
    mutating func completions(through writeID: Int) -> [UncheckedSendable<() -> ()>] {
        let count = self.completions.firstIndex(where: { $0.writeID > writeID }) ?? self.completions.count
        defer { self.completions.removeFirst(count) }
        return self.completions.prefix(count).map(\.completion)
    }

    /// Records `Set-Cookie` fields (only `name=value`; attributes are ignored; at most 50).
    mutating func storeCookies(_ setCookieValues: [String]) {
        for value in setCookieValues {
            let pair = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[pair.startIndex..<equals].trimmingCharacters(in: .whitespaces)
            let cookieValue = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            self.stickyCookies.removeAll(where: { $0.name == name })
            if self.stickyCookies.count < 50 {
                self.stickyCookies.append((name, cookieValue))
            }
        }
    }
}
