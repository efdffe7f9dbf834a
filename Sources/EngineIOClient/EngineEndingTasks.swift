/// The closes of ended attempts that still run: a replaced or closed attempt's WebSocket close
/// handshake (``EngineWebSocketDriver``), and the close `POST` of a polling attempt that a new
/// attempt replaced while its close was under way (``EnginePollingDriver/EndingClose``).
///
/// Each is the ended attempt's last task, owned here (in the host's state, under its one lock)
/// until it ends, and cancelled with the host. Each is bounded on its own: a WebSocket close
/// waits at most the connection's close timeout, a `POST` at most its idle timeout.
package struct EngineEndingTasks {
    /// What an ending task finishes.
    package enum Kind: Sendable, Equatable {
        /// The close handshake of an ended attempt's WebSocket.
        case webSocketClose
        /// The close `POST` of an ended polling attempt.
        case pollingClose
    }

    private var tasks: [Int: (kind: Kind, task: Task<Void, Never>)] = [:]
    private var nextID = 0

    package init() {}

    /// Starts `operation` and records it until it ends.
    ///
    /// Call it in the critical section of the lock that guards this value. `operation` gets
    /// the task's id and must end by calling ``ended(_:)`` with it under that same lock: the
    /// task cannot forget itself before it was recorded.
    package mutating func start(_ kind: Kind, _ operation: @escaping @Sendable (_ id: Int) async -> Void) {
        let id = self.nextID
        self.nextID += 1
        self.tasks[id] = (kind, Task { await operation(id) })
    }

    /// Task `id` ended: forget it.
    package mutating func ended(_ id: Int) {
        self.tasks[id] = nil
    }

    /// How many tasks of `kind` still run.
    package func count(_ kind: Kind) -> Int {
        self.tasks.values.reduce(0) { $0 + ($1.kind == kind ? 1 : 0) }
    }

    /// Takes every task, to be cancelled (the host goes away: a cancelled WebSocket close
    /// stops waiting for the peer and closes its socket at once).
    package mutating func takeAll() -> [Task<Void, Never>] {
        defer { self.tasks = [:] }
        return self.tasks.values.map(\.task)
    }
}
