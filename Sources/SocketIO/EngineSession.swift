import EngineIOProtocol
import Foundation
import RealtimeHTTP

/// One engine connection attempt: the protocol's ``EngineClientStateMachine`` plus the I/O
/// handles that carry out its actions.
///
/// Lives inside ``SocketEngine``'s lock. `generation` changes on every connect, so a task of
/// an older attempt recognises itself as stale and stops without side effects.
struct EngineSession {
    /// A write not yet handed to the machine (polling sends at most
    /// ``maximumPacketsPerPost`` packets per POST).
    struct PendingWrite {
        var packets: [EnginePacket]
        var completion: UncheckedSendable<() -> ()>?
    }

    /// A write handed to the machine whose completion runs once the transport send numbered
    /// `ticket` (or a later one) finished.
    struct FedWrite {
        var ticket: Int
        var completion: UncheckedSendable<() -> ()>
    }

    /// An action of the machine; sends carry their number for write completions.
    struct NumberedAction {
        var action: EngineClientAction
        var sendIndex: Int?
    }

    /// One entry of the serialized WebSocket send queue.
    enum WebSocketOutgoing {
        case frames([EngineWebSocketFrame], sendIndex: Int?)
        case close
    }

    /// What a new attempt or a close hands back to be torn down outside the lock.
    struct Teardown {
        var tasks: [Task<Void, Never>] = []
        var webSocket: (any WebSocketConnection)?
        /// The idle WebSocket writer, resumed so it sees the attempt is over and ends.
        var writerWaiter: CheckedContinuation<Void, Never>?
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

    /// Most packets in one POST: python-engineio rejects payloads of more than 16 packets
    /// with 400 ("Too many packets in payload", `Payload.max_decode_packets`); one place is
    /// kept free for a pong the machine may add.
    static let maximumPacketsPerPost = 15

    private(set) var generation = 0
    var machine = EngineClientStateMachine()
    /// `true` once the client was told the engine closed (or before the first connect).
    var notifiedClose = true

    var outbound: [PendingWrite] = []
    var fed: [FedWrite] = []
    var sendsIssued = 0

    var getTask: Task<Void, Never>?
    var postTask: Task<Void, Never>?
    var heartbeatTask: Task<Void, Never>?
    var webSocketTask: Task<Void, Never>?
    var webSocketWriterTask: Task<Void, Never>?
    var webSocket: (any WebSocketConnection)?
    var webSocketQueue: [WebSocketOutgoing] = []
    var webSocketWriterActive = false
    /// Frames taken from the queue (by the writer task) or sent directly are being written:
    /// everything else waits in ``webSocketQueue`` until they are out.
    var webSocketSending = false
    /// When the last direct send started (see `SocketEngine.directSendSpacing`).
    var lastDirectSend: ContinuousClock.Instant?
    /// Writes of a burst wait in ``webSocketQueue`` for `SocketEngine.flushDeferredWrites(generation:)`.
    var deferredFlushPending = false
    /// The writer, suspended while ``webSocketQueue`` is empty.
    var webSocketWriterWaiter: CheckedContinuation<Void, Never>?
    /// The attempt ended with a client close: the writer sends what is queued, then ends.
    var webSocketWriterDraining = false

    var pollCounter = 0
    /// The polling URL up to the `t` value, for ``pollCounter``; rebuilt when the sid changes.
    var pollingURLPrefix: PollingURLPrefix?

    /// Cookies the server set during this engine's life (`name` → `value`), sent back on the
    /// WebSocket upgrade (the HTTP client keeps its own) so sticky-session load balancers
    /// keep us on one node.
    var stickyCookies: [(name: String, value: String)] = []

    /// Starts a new attempt with a fresh machine; returns the previous attempt's resources.
    mutating func reset(configuration: EngineClientStateMachine.Configuration) -> Teardown {
        let teardown = self.takeResources()
        self.generation += 1
        self.machine = EngineClientStateMachine(configuration: configuration)
        self.notifiedClose = false
        self.outbound = []
        self.fed = []
        return teardown
    }

    /// Takes every task and the WebSocket, to be cancelled and closed.
    ///
    /// - Parameter keepingWebSocketWriter: leave the WebSocket and its send queue alone, so a
    ///   queued close packet and the queued close still go out (a client close).
    mutating func takeResources(keepingWebSocketWriter: Bool = false) -> Teardown {
        var tasks = [self.getTask, self.postTask, self.heartbeatTask, self.webSocketTask].compactMap { $0 }
        self.getTask = nil
        self.postTask = nil
        self.heartbeatTask = nil
        self.webSocketTask = nil
        guard !keepingWebSocketWriter else {
            // A waiting writer has nothing queued: wake it so it ends instead of waiting on.
            self.webSocketWriterDraining = true
            defer { self.webSocketWriterWaiter = nil }
            return Teardown(tasks: tasks, webSocket: nil, writerWaiter: self.webSocketWriterWaiter)
        }
        tasks += [self.webSocketWriterTask].compactMap { $0 }
        let teardown = Teardown(tasks: tasks, webSocket: self.webSocket, writerWaiter: self.webSocketWriterWaiter)
        self.webSocketWriterWaiter = nil
        self.webSocketWriterTask = nil
        self.webSocket = nil
        self.webSocketQueue = []
        self.webSocketWriterActive = false
        self.webSocketSending = false
        self.deferredFlushPending = false
        self.webSocketWriterDraining = false
        return teardown
    }

    /// Numbers the send actions among `actions` in the order they will be performed.
    mutating func number(_ actions: [EngineClientAction]) -> [NumberedAction] {
        actions.map { action in
            switch action {
            case .sendPollingPOST, .sendWebSocketFrames:
                defer { self.sendsIssued += 1 }
                return NumberedAction(action: action, sendIndex: self.sendsIssued)
            default:
                return NumberedAction(action: action, sendIndex: nil)
            }
        }
    }

    /// The writes the machine may take now: everything over WebSocket, and over polling at
    /// most ``maximumPacketsPerPost`` packets while no POST is in flight.
    mutating func takeFeedableWrites() -> [PendingWrite] {
        guard self.machine.isOpen, !self.outbound.isEmpty else { return [] }
        if self.machine.currentTransport == .webSocket {
            defer { self.outbound.removeAll() }
            return self.outbound
        }
        guard !self.machine.isPollingPOSTInFlight else { return [] }
        var packets = 0
        var count = 0
        for write in self.outbound {
            if count > 0 && packets + write.packets.count > Self.maximumPacketsPerPost { break }
            packets += write.packets.count
            count += 1
        }
        defer { self.outbound.removeFirst(count) }
        return Array(self.outbound.prefix(count))
    }

    /// Completions of writes carried by sends up to `sendIndex`.
    mutating func completions(through sendIndex: Int) -> [UncheckedSendable<() -> ()>] {
        var done: [UncheckedSendable<() -> ()>] = []
        self.fed.removeAll { write in
            guard write.ticket <= sendIndex else { return false }
            done.append(write.completion)
            return true
        }
        return done
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
