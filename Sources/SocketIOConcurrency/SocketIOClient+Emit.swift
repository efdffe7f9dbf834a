import Dispatch
public import Foundation
import RealtimeSync
public import SocketIO

extension SocketIOClient {
    /// Emits `event` with `items` and returns once the write completed.
    ///
    /// ```swift
    /// await socket.emit("message:send", "hello", 42)
    /// ```
    ///
    /// Wraps socket.io-client-swift's `emit(_:with:completion:)`: it returns when the engine
    /// reports the write done. While the engine's outbound buffers are more than half full
    /// (the transport does not keep up: 8 MiB or 131,072 packets waiting), it first waits for
    /// room, so a fast producer is slowed to the transport's pace instead of being refused at
    /// the bound; cancelling the task during that wait sends nothing. As there, a failure is not thrown but reported to the socket's
    /// `.error` handlers (e.g. `"Tried emitting when not connected"`); the call then returns
    /// at once. It also returns when the socket disconnects or the task is cancelled.
    ///
    /// An emit made while the socket is connecting (a `connect()` not completed yet, or the
    /// manager reconnecting) first waits for the connection, as socket.io-client's emits do:
    /// it is sent once the socket connects, and reported as not connected if the socket stops
    /// connecting instead (a refused or failed connect, a disconnect). Cancelling the task
    /// during that wait sends nothing. With the
    /// manager's `.retries(n)` it returns once the server acknowledged the emit, or it was
    /// given up (reported as `.error`).
    /// Use ``emitWithAck(_:_:timeout:)`` for a delivery you can check.
    public func emit(_ event: String, _ items: SocketData...) async {
        await self.emit(event, with: items)
    }

    /// Emits `event` with an array of items and returns once the write completed.
    ///
    /// The array form of ``emit(_:_:)``; see there.
    public func emit(_ event: String, with items: [SocketData]) async {
        // socket.io-client's rule: an emit made while the socket connects waits for it.
        _ = await self.waitWhileConnecting(timeout: nil)
        guard !Task.isCancelled else { return }
        // Backpressure: wait for room rather than run into the engine's bound.
        await self.waitForOutboundRoom()
        guard !Task.isCancelled else { return }
        let operation = PendingSocketOperation<Void>(socket: self)
        _ = await operation.run { operation in
            // upstream reports a serialization failure as a `.error` event and never calls the
            // completion, nor does it without a manager: don't wait in those cases.
            let representable = (try? items.map { try $0.socketRepresentation() }) != nil
            guard representable, self.manager != nil else {
                self.emit(event, with: items, completion: nil)
                operation.finish(.success(()))
                return
            }
            operation.register { socket in
                socket.on(clientEvent: .disconnect) { _, _ in operation.finish(.success(())) }
            }
            self.emit(event, with: items, completion: { operation.finish(.success(())) })
        }
    }

    /// Emits `event` with `items`, asking for an acknowledgement, and returns the ack.
    ///
    /// ```swift
    /// let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3)
    /// ```
    ///
    /// The ack's items become one ``Payload``: a single item is that item's payload; zero or
    /// several items are an ``Payload/array(_:)``.
    ///
    /// - Parameters:
    ///   - event: The event name.
    ///   - items: The event's arguments.
    ///   - timeout: Seconds to wait for the ack; finite and `> 0`.
    /// - Throws: ``Error/invalidTimeout(_:)``; ``Error/notConnected(event:)`` when the socket
    ///   is not connected: at once when it is not connecting either, else when it stops
    ///   connecting or is still connecting after `timeout`; ``Error/ackTimedOut(event:timeout:)``;
    ///   ``Error/disconnected(event:reason:)`` when the socket disconnects first;
    ///   ``Error/cancelled`` when the calling task is cancelled;
    ///   ``Error/invalidSocketData(event:message:)`` when an item cannot be represented;
    ///   ``Error/unsupportedPayloadType(typeName:)`` for an ack the payload cannot hold.
    /// - Important: However the call ends (ack, timeout, disconnection, cancellation), the
    ///   socket's ack entry for the emit is removed with it (`SocketIOClient.cancelAck(_:)`):
    ///   the entry and its callback go, and a late ack from the server is ignored. The
    ///   socket's one ack deadline wake-up is not cancelled per ack: it may fire once more at
    ///   its deadline and then finds nothing to do.
    ///
    /// An emit made while the socket is connecting (a `connect()` not completed yet, or the
    /// manager reconnecting) waits for the connection first, as socket.io-client's emits do;
    /// `timeout` counts from the call, so it bounds the wait for the connection and the ack
    /// together. This is what lets the seed's usage run as the top-level code of `main.swift`,
    /// where `try await socket.connect()` binds to the synchronous `connect(withPayload:)`.
    ///
    /// With the manager's `.retries(n)`, the emit is queued behind the socket's other emits
    /// (also while the socket reconnects), `timeout` bounds each try, and
    /// ``Error/ackTimedOut(event:timeout:)`` comes after `n + 1` tries without an ack; a
    /// disconnection does not end the wait unless the socket leaves, and cancelling the task
    /// takes the emit out of the queue.
    public func emitWithAck(
        _ event: String,
        _ items: SocketData...,
        timeout: TimeInterval = 5
    ) async throws(Error) -> Payload {
        try await self.emitWithAck(event, with: items, timeout: timeout)
    }

    /// Emits `event` with an array of items, asking for an acknowledgement, and returns the ack.
    ///
    /// The array form of ``emitWithAck(_:_:timeout:)``; see there.
    public func emitWithAck(
        _ event: String,
        with items: [SocketData],
        timeout: TimeInterval = 5
    ) async throws(Error) -> Payload {
        try Error.validate(timeout: timeout)
        guard !Task.isCancelled else { throw .cancelled }
        // One entry in the socket's ack table settles the wait: the ack, the deadline (the
        // manager's timer source) or the socket's disconnect; no handler, no second timer.
        //
        // The class's own `emitWithAck(_:with:)` is known: its data is made here, and the
        // status is checked in the emit's own section, which refuses unreported while the
        // socket is not connected (socket.io-client's rule: an emit made while the socket
        // connects waits for the connection, within the call's timeout). A subclass's override
        // is asked only once the socket is connected, as before; so are items that cannot be
        // represented (their error is reported by that method).
        guard !self.deliversThroughOpenMethods, let data = try? Self.eventData(event, items) else {
            return try await self.emitWithAckAfterStatusCheck(event, with: items, timeout: timeout)
        }
        let ack = self.createOnAck(data)
        switch try await self.awaitAck(ack, event: event, items: items, timeout: timeout, ackWait: timeout) {
        case .settled(let payload):
            return payload
        case .refused(connecting: false):
            throw .notConnected(event: event)
        case .refused(connecting: true):
            let start = DispatchTime.now()
            let connected = await self.waitWhileConnecting(timeout: timeout)
            guard !Task.isCancelled else { throw .cancelled }
            guard connected else { throw .notConnected(event: event) }
            let ackWait = secondsLeft(of: timeout, since: start)
            switch try await self.awaitAck(ack, event: event, items: items, timeout: timeout, ackWait: ackWait) {
            case .settled(let payload): return payload
            case .refused: throw .notConnected(event: event)
            }
        }
    }

    /// ``emitWithAck(_:with:timeout:)`` for a subclass (or items that cannot be represented):
    /// the status first, in a section of its own, then upstream's open `emitWithAck(_:with:)`.
    private func emitWithAckAfterStatusCheck(
        _ event: String, with items: [SocketData], timeout: TimeInterval
    ) async throws(Error) -> Payload {
        var ackWait = timeout
        var readiness = self.emitReadiness
        if readiness.status == .connecting, !readiness.keepsEmits {
            let start = DispatchTime.now()
            let connected = await self.waitWhileConnecting(timeout: timeout)
            guard !Task.isCancelled else { throw .cancelled }
            guard connected else { throw .notConnected(event: event) }
            ackWait = secondsLeft(of: timeout, since: start)
            readiness = self.emitReadiness
        }
        guard readiness.status == .connected || readiness.keepsEmits else { throw .notConnected(event: event) }
        let ack: OnAckCallback = self.emitWithAck(event, with: items)
        switch try await self.awaitAck(ack, event: event, items: items, timeout: timeout, ackWait: ackWait, refusesUnlessConnected: false) {
        case .settled(let payload): return payload
        case .refused: throw .notConnected(event: event)
        }
    }

    /// How one try of ``emitWithAck(_:with:timeout:)`` ended.
    enum AckTry {
        case settled(Payload)
        /// The socket was not connected (`connecting`: it was connecting) and keeps no emits:
        /// nothing was sent, registered or reported.
        case refused(connecting: Bool)
    }

    /// Sends `ack`'s emit and waits `ackWait` seconds for its ack (`timeout` is the caller's,
    /// for its errors).
    private func awaitAck(
        _ ack: OnAckCallback, event: String, items: [SocketData], timeout: TimeInterval, ackWait: TimeInterval,
        refusesUnlessConnected: Bool = true
    ) async throws(Error) -> AckTry {
        let wait = AckWait()
        // While the ack is awaited, the socket reads on even when a stream of it is behind:
        // the caller may be that stream's consumer, and the ack comes behind its events. The
        // socket's ack table counts its awaited acks in the sections that add and remove
        // them; a retry queue's emit (`.retries`: a negative ticket) is counted here.
        var retryQueued = false
        defer { if retryQueued { self.ack(awaited: false) } }
        var refusal: Bool?
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<Payload, Error>, Never>) in
                guard wait.install(continuation) else { return }
                let sent = ack.sendWithAck(timingOut: ackWait, refusesUnlessConnected: refusesUnlessConnected) { outcome in
                    switch outcome {
                    case .ack(.values(let values)):
                        // From the network, settled on the thread that read it.
                        if values == [.string(SocketAckStatus.noAck.rawValue)] {
                            wait.finish(.failure(.ackTimedOut(event: event, timeout: timeout)))
                        } else {
                            wait.finish(.success(Payload(arguments: values)))
                        }
                    case .ack(.items(let ackItems)):
                        if let error = Error(ackItems: ackItems, event: event, timeout: timeout) {
                            wait.finish(.failure(error))
                            return
                        }
                        do throws(Error) {
                            wait.finish(.success(try Payload(socketItems: ackItems)))
                        } catch {
                            wait.finish(.failure(error))
                        }
                    case .timedOut:
                        wait.finish(.failure(.ackTimedOut(event: event, timeout: timeout)))
                    case .disconnected(let reason):
                        wait.finish(.failure(.disconnected(event: event, reason: DisconnectReason(rawReason: reason))))
                    }
                }
                // Cancelled meanwhile: the socket forgets the ack (no entry, no callback)
                // before the task resumes.
                switch sent {
                case .sent(let ackID):
                    if ackID < 0 {
                        retryQueued = true
                        self.ack(awaited: true)
                    }
                    wait.sent(ackID: ackID, drop: self.cancelAck)
                case .refused(let connecting):
                    refusal = connecting
                    wait.sent(ackID: nil, drop: self.cancelAck)
                    wait.finish(.failure(.notConnected(event: event)))
                case .notConnected:
                    wait.sent(ackID: nil, drop: self.cancelAck)
                    wait.finish(.failure(.notConnected(event: event)))
                case .notSendable:
                    wait.sent(ackID: nil, drop: self.cancelAck)
                    wait.finish(.failure(Self.representationError(event: event, items: items)))
                case .queueFull(let limit):
                    wait.sent(ackID: nil, drop: self.cancelAck)
                    wait.finish(
                        .failure(
                            .clientError(
                                event: event, message: "Retry queue full (\(limit) emits): not sent", source: .application)))
                }
            }
        } onCancel: {
            wait.cancel(drop: self.cancelAck)
        }
        // A cancellation that ended the wait first wins.
        if let refusal, case .failure(.notConnected) = outcome { return .refused(connecting: refusal) }
        return .settled(try outcome.get())
    }

    /// The error upstream reports (`[event, items, error]`) for items that cannot be represented.
    static func representationError(event: String, items: [SocketData]) -> Error {
        do {
            _ = try items.map { try $0.socketRepresentation() }
            return .notConnected(event: event)
        } catch {
            return Error(clientErrorItems: [event, items, error], event: event)
        }
    }
}

/// The wait of one async `emitWithAck`: the first outcome wins and resumes the task. The
/// socket's ack entry is gone before the task resumes, however the wait ends.
///
/// The continuation is unsafe (no checking canary allocated per call): `finished`, under the
/// lock, lets exactly one outcome take it, and `install` resumes it itself when the wait had
/// already ended, so it is resumed exactly once.
///
/// A cancellation while the EVENT is being sent (the ack id not known yet) ends the wait but
/// leaves the resumption to ``sent(ackID:drop:)``, which drops the ack first: so a cancelled
/// call never leaves an entry (and its timer) behind, not even for a moment after it returns.
///
/// A struct around its one `LockedValue` (one allocation per wait: the lock's storage); copies
/// share the wait.
struct AckWait: Sendable {
    typealias Outcome = Result<SocketIOClient.Payload, SocketIOClient.Error>

    private struct State {
        var continuation: UnsafeContinuation<Outcome, Never>?
        var finished = false
        var ackID: Int?
        /// Between ``install(_:)`` and ``sent(ackID:drop:)``.
        var sending = false
        /// Cancelled while sending: ``sent(ackID:drop:)`` drops the ack, then resumes.
        var cancelledWhileSending = false
    }

    private let state = LockedValue(State())

    /// Installs the task's continuation before the EVENT is sent; `false` (and resumed with
    /// `.cancelled`) when the task was cancelled before.
    func install(_ continuation: UnsafeContinuation<Outcome, Never>) -> Bool {
        let finished = self.state.withLock { state -> Bool in
            guard !state.finished else { return true }
            state.continuation = continuation
            state.sending = true
            return false
        }
        if finished { continuation.resume(returning: .failure(.cancelled)) }
        return !finished
    }

    /// The send returned, with the ack id it registered (`nil`: nothing registered). A
    /// cancellation that came meanwhile is completed here: `drop` removes the ack, then the
    /// task resumes with `.cancelled`.
    func sent(ackID: Int?, drop: (Int) -> Void) {
        let cancelled = self.state.withLock { state -> UnsafeContinuation<Outcome, Never>? in
            state.sending = false
            state.ackID = ackID
            guard state.cancelledWhileSending else { return nil }
            defer { state.continuation = nil }
            return state.continuation
        }
        guard let cancelled else { return }
        if let ackID { drop(ackID) }
        cancelled.resume(returning: .failure(.cancelled))
    }

    /// Ends the wait with `outcome` unless it already ended.
    func finish(_ outcome: Outcome) {
        let continuation = self.state.withLock { state -> UnsafeContinuation<Outcome, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }

    /// Ends the wait with `.cancelled`: `drop` removes the ack (when its id is known) before
    /// the task resumes; while the EVENT is being sent, ``sent(ackID:drop:)`` does both.
    ///
    /// Reading the id and ending the wait are one critical section with
    /// ``sent(ackID:drop:)``. (Two sections left a window where neither the canceller nor
    /// the sender dropped the ack, and the entry waited out its timeout.)
    func cancel(drop: (Int) -> Void) {
        let taken = self.state.withLock { state -> (UnsafeContinuation<Outcome, Never>?, Int?)? in
            guard !state.finished else { return nil }
            state.finished = true
            if state.sending {
                state.cancelledWhileSending = true
                return nil
            }
            defer { state.continuation = nil }
            return (state.continuation, state.ackID)
        }
        guard let (continuation, ackID) = taken else { return }
        if let ackID { drop(ackID) }
        continuation?.resume(returning: .failure(.cancelled))
    }
}
