public import Foundation

/// A class that represents an emit that will request an ack that has not yet been sent.
/// Call `timingOut(after:callback:)` to complete the emit
///
/// ```swift
/// socket.emitWithAck("myEvent").timingOut(after: 1) {data in
///     ...
/// }
/// ```
public final class OnAckCallback: NSObject, @unchecked Sendable {
    // `@unchecked Sendable`: only immutable `let`s (the `[Any]` items are never mutated) and a
    // weak reference to the thread-safe socket.
    /// `false` when the emit could not be built (the error was reported): nothing is sent.
    private let sendable: Bool
    private let binary: Bool
    private let items: [Any]

    private weak var socket: SocketIOClient?

    init(items: [Any], socket: SocketIOClient, binary: Bool = true, sendable: Bool = true) {
        self.items = items
        self.socket = socket
        self.binary = binary
        self.sendable = sendable
    }

    // MARK: Methods

    /// Completes an emitWithAck. If this isn't called, the emit never happens.
    ///
    /// - parameter seconds: The number of seconds before this emit times out if an ack hasn't been received.
    ///                      Pass 0 to never time out.
    /// - parameter callback: The callback called when an ack is received, or when a timeout happens.
    ///                       To check for timeout, use `SocketAckStatus`'s `noAck` case (`["NO ACK"]`).
    ///
    /// - Important: The callback runs on the manager's `handleQueue`.
    public func timingOut(after seconds: Double, callback: @escaping AckCallback) {
        self.sendWithAck(timingOut: seconds, callback: callback)
    }

    /// ``timingOut(after:callback:)`` that returns the ack id, so the caller can drop the
    /// wait with `SocketIOClient.cancelAck(_:)`.
    ///
    /// The ack is registered (in the socket's `AckTable`) before the EVENT is written, so an
    /// early answer is never missed. As upstream, a failed write (not connected) leaves the
    /// ack waiting until its timeout.
    ///
    /// - Returns: the ack id (with `.retries`, a negative queue ticket that `cancelAck(_:)` takes
    ///   too); `nil` when nothing was sent (no socket, or the items could not be represented).
    @discardableResult
    package func sendWithAck(timingOut seconds: Double, callback: @escaping AckCallback) -> Int? {
        guard let socket = self.socket, self.sendable else { return nil }

        // `.retries`: queued, with `seconds` as each try's timeout (0: the manager's `.ackTimeout`).
        let retried = SocketIOClient.RetriedEmit(
            items: self.items, binary: self.binary, timeout: seconds > 0 ? seconds : nil, outcome: .callback(callback))
        switch socket.emit(self.items, ack: .register(.callback(callback), timeout: seconds), binary: self.binary, retried: retried) {
        case .direct(_, let ackID): return ackID
        case .retried(.queued(let ticket)): return ticket
        case .retried, .refused: return nil
        }
    }

    /// How ``sendWithAck(timingOut:waiter:)`` went.
    package enum WaiterSend {
        /// Sent; the waiter is called once with the ack, the timeout or a disconnect.
        case sent(ackID: Int)
        /// No socket, or the items could not be represented (reported as upstream does): nothing sent.
        case notSendable
        /// The socket was not connected (reported as upstream does): nothing waits.
        case notConnected
        /// `.retries`: the retry queue holds `limit` emits already; nothing waits.
        case queueFull(limit: Int)
        /// Asked with `refusesUnlessConnected`: the socket is not connected (`connecting`: it
        /// is connecting) and keeps no emits. Nothing was sent, registered or reported.
        case refused(connecting: Bool)
    }

    /// Sends the emit with an ack an awaiting operation waits for (`SocketIOConcurrency`):
    /// one entry in the socket's ack table, settled exactly once by the ack, the deadline (on
    /// the manager's timer source, not `handleQueue`) or the socket's disconnect. No handler
    /// is registered and no second timer armed.
    ///
    /// - Parameter refusesUnlessConnected: refuse as ``WaiterSend/refused(connecting:)`` while
    ///   the socket is not connected and keeps no emits (checked in the emit's own section),
    ///   instead of reporting it as upstream does.
    package func sendWithAck(
        timingOut seconds: Double,
        refusesUnlessConnected: Bool = false,
        waiter: @escaping (SocketIOClient.AckWaiterOutcome) -> Void
    ) -> WaiterSend {
        guard let socket = self.socket, self.sendable else { return .notSendable }

        // `.retries`: queued, with `seconds` as each try's timeout; the ticket cancels it.
        let retried = SocketIOClient.RetriedEmit(
            items: self.items, binary: self.binary, timeout: seconds > 0 ? seconds : nil, outcome: .waiter(waiter))
        let sent: Bool
        let id: Int?
        switch socket.emit(
            self.items, ack: .register(.waiter(waiter), timeout: seconds), binary: self.binary, retried: retried,
            refusesUnlessConnected: refusesUnlessConnected)
        {
        case .refused(let connecting): return .refused(connecting: connecting)
        case .retried(.queued(let ticket)): return .sent(ackID: ticket)
        case .retried(.notConnected): return .notConnected
        case .retried(.full(let limit)): return .queueFull(limit: limit)
        case .direct(let wasSent, let ackID): (sent, id) = (wasSent, ackID)
        }
        guard sent, let id else {
            if let id { socket.cancelAck(id) }
            return .notConnected
        }
        return .sent(ackID: id)
    }
}
