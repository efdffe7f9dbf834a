import Dispatch
import Foundation
import RealtimeSync
import SocketIOProtocol

/// Delivery with retries (`.retries(n)`, with `.ackTimeout(s)`): the driver of the socket's
/// `SocketIOProtocol.EmitRetryQueue`.
///
/// The machine decides what goes out and when an emit is done; this extension writes each try
/// with a fresh ack id whose entry in the socket's ack table (`PendingAck.queued`) carries the
/// try's deadline, and feeds the table's answers back: the ack, the deadline, the loss of the
/// connection. Every path runs the machine under the socket's lock and performs its actions
/// after releasing it.
extension SocketIOClient {
    /// One emit of the retry queue, and who hears how it ended.
    struct RetriedEmit {
        /// How the caller hears the outcome.
        enum Outcome {
            /// A plain `emit`: its completion runs (on `handleQueue`) once the server
            /// acknowledged it or it was given up.
            case written((() -> Void)?)
            /// `emitWithAck(...).timingOut(after:)`: the ack's items, or `["NO ACK"]` when it was
            /// given up (on `handleQueue`).
            case callback(AckCallback)
            /// An awaiting operation of `SocketIOConcurrency`.
            case waiter((AckWaiterOutcome) -> Void)
        }

        /// The event name and its items, in their socket representation.
        let items: [Any]
        let binary: Bool
        /// Seconds each try waits for its ack; `nil`: the manager's `.ackTimeout`.
        let timeout: Double?
        let outcome: Outcome

        var event: String { self.items.first as? String ?? "" }

        var isAwaited: Bool {
            if case .waiter = self.outcome { true } else { false }
        }
    }

    typealias RetryAction = EmitRetryQueue<RetriedEmit>.Action

    /// How ``enqueueRetried(_:)`` went.
    enum RetryEnqueue {
        /// Queued; `ticket` identifies it to ``cancelAck(_:)`` (negative: never an ack id).
        case queued(ticket: Int)
        /// The queue is full: nothing was queued (the failure was reported).
        case full(limit: Int)
        /// The socket is neither connected nor connecting: nothing was queued (reported as
        /// upstream reports an emit while not connected).
        case notConnected
    }

    /// Queues `emit` for delivery with retries; `nil` when `.retries` is off (send it as usual).
    func enqueueRetried(_ emit: RetriedEmit) -> RetryEnqueue? {
        enum Decision {
            case off, notConnected
            case queued(Int, [RetryAction])
            case full(Int)
        }
        let decision = self.state.withLock { state -> Decision in
            guard state.retryQueue != nil else { return .off }
            // Kept while connected or (re)connecting; refused once the socket left, as upstream
            // refuses an emit while not connected (a leave fails what is queued).
            guard state.session.connection.status == .connected || state.session.connection.status == .connecting else {
                return .notConnected
            }
            switch state.retryQueue!.enqueue(emit) {
            case .queued(let sequence, let actions): return .queued(sequence, actions)
            case .full(let limit): return .full(limit)
            }
        }
        switch decision {
        case .off:
            return nil
        case .notConnected:
            // A waiter's caller reports these itself (a typed error), the others hear them here.
            if !emit.isAwaited { self.settle(emit, failure: "Tried emitting when not connected", tries: 0) }
            return .notConnected
        case .full(let limit):
            if !emit.isAwaited { self.settle(emit, failure: "Retry queue full (\(limit) emits): not sent", tries: 0) }
            return .full(limit: limit)
        case .queued(let sequence, let actions):
            self.performRetries(actions)
            return .queued(ticket: Self.ticket(forSequence: sequence))
        }
    }

    /// A queue ticket for ``cancelAck(_:)``: negative, so it is never an ack id.
    static func ticket(forSequence sequence: Int) -> Int { -1 - sequence }

    /// The queue sequence of a ticket, or `nil` for an ack id.
    static func sequence(forTicket ticket: Int) -> Int? { ticket < 0 ? -1 - ticket : nil }

    /// The caller of a queued emit stopped waiting: it leaves the queue (a try in flight is
    /// forgotten, its late ack ignored) and the next one goes out.
    func cancelRetried(sequence: Int) {
        let actions = self.state.withLock { state -> [RetryAction] in
            guard state.retryQueue != nil else { return [] }
            let (_, actions) = state.retryQueue!.cancel(sequence: sequence)
            _ = state.session.removeAcks(where: { if case .queued(sequence) = $0 { true } else { false } })
            return actions
        }
        self.performRetries(actions)
    }

    /// The server acknowledged the try of `sequence` with `items`.
    func retryAcknowledged(sequence: Int, items: AckItems) {
        let actions = self.state.withLock { $0.retryQueue?.acknowledged(sequence: sequence) ?? [] }
        self.performRetries(actions, ack: items)
    }

    /// The try of `sequence` passed its deadline.
    func retryTimedOut(sequence: Int) {
        let actions = self.state.withLock { $0.retryQueue?.timedOut(sequence: sequence) ?? [] }
        self.performRetries(actions)
    }

    /// The socket is connected: the head goes out (again).
    func retryConnected() {
        let actions = self.state.withLock { $0.retryQueue?.connected() ?? [] }
        self.performRetries(actions)
    }

    /// The connection was lost (the manager reconnects): the try in flight ended without its
    /// ack; its ack entry is dropped (no answer can come on a new connection).
    func retryConnectionLost() {
        self.performRetries(self.endConnection(leaving: false).actions)
    }

    /// The socket left (a disconnect, the server's or the app's): every queued emit fails.
    func retryLeft(reason: String) {
        let (actions, left) = self.endConnection(leaving: true)
        self.performRetries(actions)
        for emit in left {
            self.settle(emit, disconnected: reason)
        }
    }

    /// The connection ended: the tries' ack entries are dropped (no answer can come on another
    /// connection; the ack wake-up is cancelled when nothing else waits with a deadline), the
    /// machine hears it, and a leave empties the queue.
    private func endConnection(leaving: Bool) -> (actions: [RetryAction], left: [RetriedEmit]) {
        self.state.withLock { state -> ([RetryAction], [RetriedEmit]) in
            guard state.retryQueue != nil else { return ([], []) }
            self.apply(state.session.removeAcksAtDisconnect(where: { if case .queued = $0 { true } else { false } }).ackTimer, to: &state)
            let actions = state.retryQueue!.disconnected()
            return (actions, leaving ? state.retryQueue!.removeAll() : [])
        }
    }

    /// Performs the machine's actions in order; `ack` is the answer an `.acknowledged` hands on.
    private func performRetries(_ actions: [RetryAction], ack: AckItems? = nil) {
        guard !actions.isEmpty else { return }
        let defaultTimeout = self.state.withLock { $0.ackTimeout }
        for action in actions {
            switch action {
            case .send(let sequence, let emit, let attempt):
                let id = self.registerAck(timeout: emit.timeout ?? defaultTimeout, .queued(sequence))
                DefaultSocketLogger.Logger.log("Sending queued emit \(sequence), try \(attempt)", type: logType)
                // The machine sends only while connected; if the connection went meanwhile, the
                // entry goes with the connection's loss, which also ends this try.
                self.emit(emit.items, ack: id, binary: emit.binary)
            case .acknowledged(let emit):
                self.settle(emit, ack: ack ?? .values([]))
            case .failed(let emit, let tries):
                self.settle(emit, failure: "No ack for '\(emit.event)' after \(tries) tries: given up", tries: tries)
            }
        }
    }

    private func settle(_ emit: RetriedEmit, ack: AckItems) {
        switch emit.outcome {
        case .written(let completion):
            self.onHandleQueue { completion?() }
        case .callback(let callback):
            let items: [Any] =
                switch ack {
                case .values(let values): SocketValueConversion.items(from: values)
                case .items(let items): items
                }
            self.onHandleQueue { callback(items) }
        case .waiter(let waiter):
            waiter(.ack(ack))
        }
    }

    /// Ends `emit` without an ack: `failure` is reported as an `.error` client event (for a
    /// plain emit, whose completion cannot say it, and for an ack callback never sent), an ack
    /// callback gets `["NO ACK"]`, a waiter a timeout (one never queued is reported by its
    /// caller, see ``enqueueRetried(_:)``).
    private func settle(_ emit: RetriedEmit, failure: String, tries: Int) {
        DefaultSocketLogger.Logger.log(failure, type: logType)
        switch emit.outcome {
        case .written(let completion):
            self.onHandleQueue { completion?() }
            self.handleClientEvent(.error, data: [failure])
        case .callback(let callback):
            if tries == 0 { self.handleClientEvent(.error, data: [failure]) }
            self.onHandleQueue { callback([SocketAckStatus.noAck.rawValue]) }
        case .waiter(let waiter):
            waiter(.timedOut)
        }
    }

    private func settle(_ emit: RetriedEmit, disconnected reason: String) {
        switch emit.outcome {
        case .written(let completion):
            self.onHandleQueue { completion?() }
            self.handleClientEvent(.error, data: ["Tried emitting when not connected"])
        case .callback(let callback):
            self.onHandleQueue { callback([SocketAckStatus.noAck.rawValue]) }
        case .waiter(let waiter):
            waiter(.disconnected(reason: reason))
        }
    }

    private func onHandleQueue(_ body: @escaping () -> Void) {
        let box = UncheckedSendable(body)
        (self.manager?.handleQueue ?? DispatchQueue.global()).async { box.value() }
    }
}

extension SocketIOClient {
    /// The most emits a retry queue holds when `.sendBuffer` names no larger bound.
    static let defaultRetryQueueLimit = 1_000

    /// Sets up (or keeps) the retry queue for the manager's `.retries` at a join. A queue that
    /// holds emits is kept as it is; with the option off an empty queue is dropped.
    static func applyRetryOptions(retries: Int, ackTimeout: Double, sendBuffer: Int, to state: inout State) {
        guard retries > 0 else {
            if state.retryQueue?.count == 0 { state.retryQueue = nil }
            return
        }
        state.ackTimeout = ackTimeout
        if let queue = state.retryQueue, queue.count > 0 || queue.retries == retries { return }
        state.retryQueue = EmitRetryQueue(retries: retries, limit: max(sendBuffer, Self.defaultRetryQueueLimit))
    }
}
