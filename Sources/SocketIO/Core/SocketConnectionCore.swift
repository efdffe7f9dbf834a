import EngineIOClient
import RealtimeSync
import SocketIOProtocol

/// One Socket.IO session's state under one lock: the manager's half (its
/// `SocketSessionMachine`: the packet reader, the bound on queued work, reconnection; its
/// sockets by namespace, its options and engine), every engine's half (its Engine.IO
/// `EngineClientStateMachine` in the connection attempt, its turns, its write completions),
/// every socket's half (its `NamespaceSessionMachine`: status, acks, kept emits, recovery's pid
/// and offset; its handlers), and the one timer source all of them use.
///
/// `SocketManager`, `SocketEngine` and `SocketIOClient` are adapters over it: their `state` is a
/// view into the core's (``ManagerStateLock``, ``EngineStateLock``, ``SocketStateLock``), so a
/// subclass, which inherits the adapter, keeps its state in the same place as the class
/// itself. A WebSocket message is fed to the engine's machine, read, routed and run through
/// its socket's machine in one critical section of the core
/// (``SocketEngine/drive(_:_:)``, ``SocketManager/packetStep(_:in:)``): the other halves are
/// members of the value that section holds, reached by their slots, not siblings locked
/// "again".
///
/// A socket whose manager is not a `SocketManager` (an app's own `SocketManagerSpec`), and an
/// engine whose client is not one, get a core of their own, with no manager half.
final class SocketConnectionCore: @unchecked Sendable {
    // `@unchecked Sendable`: every field is a `let`; `state` is read and written only under its
    // mutex, and `lockDomain` is that mutex (not `Sendable` itself because it is a bare
    // allocation), handed to the engines that share it.
    struct State {
        /// The manager's half; `nil` in the core of a socket of another kind of manager, and
        /// after the manager is released (its sockets then keep their own halves until they go).
        var manager: SocketManager.State?
        /// Every socket's half, by the slot the socket was given at `init`.
        var sockets = SlotTable<SocketIOClient.State>()
        /// Every engine's half (the manager's current engine, and one it replaced while it
        /// closes), by the slot the engine was given at `init`.
        var engines = SlotTable<SocketEngine.State>()
    }

    /// The one mutex of the session, which the core's state locks (debug builds count its
    /// sections: `SocketIOLockCountTests`).
    let lockDomain: LockDomain

    let state: LockedValue<State>

    /// The source the session was given (a manager's: its loop's timers, or a test's).
    private let timerSource: (any SocketTimerSource)?

    /// The session's one timer source: ack deadlines, reconnect tries, connect timeouts and
    /// the heartbeat of the engines a manager makes. A core made without one (a socket or an
    /// engine without a `SocketManager`) takes the process default's when it first needs a
    /// timer, not at `init`.
    var timers: any SocketTimerSource { self.timerSource ?? EventLoopTimerSource.shared }

    /// Whether a `SocketManager` made this core (its manager half is in ``state`` while the
    /// manager lives), rather than a socket of another kind of manager.
    let belongsToManager: Bool

    init(manager: SocketManager.State?, timers: (any SocketTimerSource)?) {
        self.belongsToManager = manager != nil
        self.lockDomain = LockDomain.make()
        self.state = LockedValue(State(manager: manager), sharing: self.lockDomain)
        self.timerSource = timers
    }

    /// Adds a socket's half; the socket's ``SocketStateLock`` reaches it by the returned slot.
    func register(_ socket: SocketIOClient.State) -> SocketStateLock {
        let slot = self.state.withLock { $0.sockets.insert(socket) }
        return SocketStateLock(core: self, slot: slot)
    }

    /// Removes a socket's half (its `deinit`).
    func unregister(_ lock: SocketStateLock) {
        // Taken out in the section and released after it: the state may hold the last
        // reference to objects whose `deinit` locks again.
        let removed = self.state.withLock { $0.sockets.remove(lock.slot) }
        withExtendedLifetime(removed) {}
    }

    /// Adds an engine's half; the engine's ``EngineStateLock`` reaches it by the returned slot.
    func register(_ engine: SocketEngine.State) -> EngineStateLock {
        let slot = self.state.withLock { $0.engines.insert(engine) }
        return EngineStateLock(core: self, slot: slot)
    }

    /// Removes an engine's half (its `deinit`), released after the section as
    /// ``unregister(_:)-(SocketStateLock)`` does.
    func unregister(_ lock: EngineStateLock) {
        let removed = self.state.withLock { $0.engines.remove(lock.slot) }
        withExtendedLifetime(removed) {}
    }

    /// Takes the manager's half out (its `deinit`): its sockets by namespace go with it, so
    /// sockets that hold this core no longer keep each other alive through it. Released after
    /// the section, as ``unregister(_:)`` does.
    func releaseManager() {
        let removed = self.state.withLock { $0.manager.take() }
        withExtendedLifetime(removed) {}
    }

    /// The manager's options (`nil` in a core without a manager half).
    var managerOptions: SocketManagerOptions? {
        self.state.withLock { $0.manager?.options }
    }

    // MARK: Reading backpressure

    /// A stream of SocketIOConcurrency fell behind its bound (`true`) or caught up or ended
    /// (`false`): while any is behind (and no awaited ack is outstanding), the engine stops
    /// reading (`InboundBacklog`).
    func consumer(behind: Bool) {
        self.state.withLock { state in
            guard state.manager != nil else { return }
            Self.apply(state.manager!.session.consumer(behind: behind), to: state.manager!.readGate)
        }
    }

    /// An awaited ack was asked for (`true`) or settled (`false`): while one is outstanding,
    /// streams that are behind do not stop the reading its answer needs (`InboundBacklog`).
    func ack(awaited: Bool) {
        self.state.withLock { state in
            guard state.manager != nil else { return }
            Self.apply(state.manager!.session.ack(awaited: awaited), to: state.manager!.readGate)
        }
    }

    /// Applies a change to the engine's reading (in the core's critical section, so that
    /// changes reach the gate in order).
    static func apply(_ action: SocketSessionMachine.Action?, to gate: EngineReadGate?) {
        switch action {
        case .pauseReading?: gate?.pause()
        case .resumeReading?: gate?.resume()
        default: break
        }
    }
}

/// The manager's half of its core's state, locked through the core (the `state` of a
/// `SocketManager`).
struct ManagerStateLock: Sendable {
    let core: SocketConnectionCore

    /// Runs `body` with the manager's half, in one critical section of the core.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout SocketManager.State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try self.core.state.withLock { (state: inout SocketConnectionCore.State) throws(Failure) -> Result in
            try body(&state.manager!)
        }
    }
}

/// One socket's half of its core's state, locked through the core (the `state` of a
/// `SocketIOClient`).
///
/// - Important: The half goes with the socket (its `deinit`): lock it only while the socket
///   is held.
struct SocketStateLock: Sendable {
    let core: SocketConnectionCore
    /// Where the socket's half is in ``SocketConnectionCore/State/sockets``.
    let slot: Int

    /// Runs `body` with the socket's half, in one critical section of the core.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout SocketIOClient.State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try self.core.state.withLock { (state: inout SocketConnectionCore.State) throws(Failure) -> Result in
            try body(&state.sockets[self.slot])
        }
    }
}

/// One engine's half of its core's state, locked through the core (the `state` of a
/// `SocketEngine`).
///
/// - Important: The half goes with the engine (its `deinit`): lock it only while the engine
///   is held (`self.state.withLock` in a method; `withExtendedLifetime` in a closure that
///   captured the engine weakly), as for ``SocketStateLock``.
struct EngineStateLock: Sendable {
    let core: SocketConnectionCore
    /// Where the engine's half is in ``SocketConnectionCore/State/engines``.
    let slot: Int

    /// Runs `body` with the engine's half, in one critical section of the core.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout SocketEngine.State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try self.core.state.withLock { (state: inout SocketConnectionCore.State) throws(Failure) -> Result in
            try body(&state.engines[self.slot])
        }
    }
}

/// The sockets' or engines' halves of a core's state, each in a slot that stays its own while
/// its object lives (a freed slot is reused by the next).
struct SlotTable<Element> {
    private var slots: [Element?] = []
    private var free: [Int] = []

    /// How many objects have a half here.
    private(set) var count = 0

    mutating func insert(_ element: Element) -> Int {
        self.count += 1
        if let slot = self.free.popLast() {
            self.slots[slot] = element
            return slot
        }
        self.slots.append(element)
        return self.slots.count - 1
    }

    mutating func remove(_ slot: Int) -> Element? {
        guard let removed = self.slots[slot].take() else { return nil }
        self.count -= 1
        self.free.append(slot)
        return removed
    }

    /// An object's half. Reach it with mutating calls (`table[slot].step(...)`, `&table[slot]`)
    /// on a path that runs often: a read may copy the whole half.
    subscript(slot: Int) -> Element {
        _read { yield self.slots[slot]! }
        set { self.slots[slot] = newValue }
        _modify { yield &self.slots[slot]! }
    }
}
