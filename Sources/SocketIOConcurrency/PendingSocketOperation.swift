import Dispatch
import Foundation
import RealtimeSync
import SocketIO

/// One async operation waiting on a socket: its one-shot outcome, the handlers it registered
/// and the continuation of the task awaiting it, behind one lock.
///
/// The first ``finish(_:)`` wins (the awaited event, the timeout, the task's cancellation); it
/// removes the operation's handlers and drops what it registered elsewhere (an ack, through
/// ``onFinish(_:)``), then resumes the waiting task. Later inputs are ignored.
/// So when the task resumes, nothing the operation registered is left on the socket.
///
/// - Important: relies on `SocketIOClient` being thread-safe (this package's SocketIO guards
///   its state with a lock): handlers are added and removed from whichever thread finishes.
final class PendingSocketOperation<Value: Sendable>: Sendable {
    typealias Outcome = Result<Value, SocketIOClient.Error>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        /// Set by the first `finish`; it waits here if no continuation is installed yet.
        var outcome: Outcome?
        var handlerIDs: [UUID] = []
        /// Run when the operation finishes (e.g. dropping an ack it registered).
        var cleanups: [@Sendable (SocketIOClient) -> Void] = []
    }

    private let state = LockedValue(State())
    let socket: SocketIOClient

    init(socket: SocketIOClient) {
        self.socket = socket
        PendingSocketOperationCount.live.withLock { $0 += 1 }
    }

    deinit {
        PendingSocketOperationCount.live.withLock { $0 -= 1 }
    }

    /// `true` once the operation has an outcome.
    var isFinished: Bool {
        self.state.withLock { $0.outcome != nil }
    }

    /// Registers a handler (`body` adds it and returns its id) for the operation's lifetime:
    /// it is removed when the operation finishes, or at once if it already has.
    func register(_ body: (SocketIOClient) -> UUID) {
        guard !self.isFinished else { return }
        let id = body(self.socket)
        let stillPending = self.state.withLock { state in
            guard state.outcome == nil else { return false }
            state.handlerIDs.append(id)
            return true
        }
        if !stillPending { self.socket.off(id: id) }
    }

    /// Runs `cleanup` when the operation finishes, before the task resumes; at once if it
    /// already has.
    func onFinish(_ cleanup: @escaping @Sendable (SocketIOClient) -> Void) {
        let stillPending = self.state.withLock { state in
            guard state.outcome == nil else { return false }
            state.cleanups.append(cleanup)
            return true
        }
        if !stillPending { cleanup(self.socket) }
    }

    /// Finishes the operation with `outcome` after `seconds`; if that finished it, `cleanup`
    /// runs before the task resumes.
    ///
    /// The timer comes from the manager's one timer source (the event loop's timers; the
    /// default source when the manager is gone), not from the manager's `handleQueue`: it must
    /// fire even when that queue is busy or (for the main queue) not serviced. It holds the
    /// operation weakly (the awaiting task keeps a pending operation alive) and is cancelled
    /// when the operation finishes otherwise, so nothing outlives the operation.
    func finish(
        after seconds: TimeInterval, with outcome: Outcome,
        cleanup: (@Sendable (SocketIOClient) -> Void)? = nil
    ) {
        let timer = self.socket.timers.schedule(after: seconds) { [weak self] in
            self?.finish(outcome, cleanup: cleanup)
        }
        self.onFinish { _ in timer.cancel() }
    }

    /// Suspends until the operation finishes; cancelling the task finishes it with `.cancelled`.
    ///
    /// - Parameter start: Called once, synchronously, to register handlers and start the work.
    func run(_ start: (PendingSocketOperation<Value>) -> Void) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let ready: Outcome? = self.state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    state.continuation = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else {
                    start(self)
                }
            }
        } onCancel: {
            self.finish(.failure(.cancelled))
        }
    }

    /// Finishes the operation (the first call wins): removes its handlers, runs `cleanup` and
    /// the ``onFinish(_:)`` cleanups, then resumes the task.
    ///
    /// - Returns: `true` if this call finished it.
    @discardableResult
    func finish(_ outcome: Outcome, cleanup: ((SocketIOClient) -> Void)? = nil) -> Bool {
        typealias Taken = (CheckedContinuation<Outcome, Never>?, [UUID], [@Sendable (SocketIOClient) -> Void])
        let taken: Taken? = self.state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            let taken = (state.continuation, state.handlerIDs, state.cleanups)
            state.continuation = nil
            state.handlerIDs = []
            state.cleanups = []
            return taken
        }
        guard let (continuation, handlerIDs, cleanups) = taken else { return false }
        for id in handlerIDs { self.socket.off(id: id) }
        cleanup?(self.socket)
        for registered in cleanups { registered(self.socket) }
        continuation?.resume(returning: outcome)
        return true
    }
}

/// How many ``PendingSocketOperation``s exist (for leak checks in tests): every one that
/// finished must be released, with the handlers, ack and continuation it held.
package enum PendingSocketOperationCount {
    static let live = LockedValue(0)

    /// Operations alive now.
    package static var current: Int { self.live.withLock { $0 } }
}
