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
        /// The readers of the manager's engine that wait while the session holds reads back
        /// (`SocketSessionMachine.readingPaused`, the one place that is kept): resumed when the
        /// session says `.resumeReading`, and when the manager's half is released. Here, not
        /// in that half, so a reader cancelled after the release still finds its list.
        var readWaiters = WaitList<Void>()
        /// The acks an awaiting operation waits for, across the sockets' halves (each
        /// machine's `awaitedAcks`, added up by ``withSocket(_:wake:_:)``): while any is
        /// outstanding, a stream that fell behind does not stop the reading the answer needs.
        var awaitedAcks = 0

        /// Runs `body` on the half of the socket at `slot`, and keeps ``awaitedAcks`` with
        /// what it did to the socket's acks. When the first awaited ack appears and the session
        /// then reads again, the readers to resume after the section are added to `wake`.
        @inline(__always)
        mutating func withSocket<Result, Failure: Error>(
            _ slot: Int, wake: inout [UnsafeContinuation<Void, Never>],
            _ body: (inout SocketIOClient.State) throws(Failure) -> Result
        ) throws(Failure) -> Result {
            // Through the slot table's `_modify` (a read could copy the half).
            func awaited(_ half: inout SocketIOClient.State) -> Int { half.session.awaitedAcks }
            let before = awaited(&self.sockets[slot])
            defer {
                let after = awaited(&self.sockets[slot])
                if after != before { self.awaitedAcksChanged(by: after - before, wake: &wake) }
            }
            return try body(&self.sockets[slot])
        }

        /// Adds `delta` to ``awaitedAcks``; the session machine hears when the first is asked
        /// for and when the last is settled.
        mutating func awaitedAcksChanged(by delta: Int, wake: inout [UnsafeContinuation<Void, Never>]) {
            let wasAwaiting = self.awaitedAcks > 0
            self.awaitedAcks += delta
            let isAwaiting = self.awaitedAcks > 0
            guard wasAwaiting != isAwaiting, self.manager != nil else { return }
            // Settling the last can only pause the reading (the readers ask the session).
            if case .resumeReading? = self.manager!.session.ack(awaited: isAwaiting) {
                wake += self.readWaiters.takeAll()
            }
        }
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

    /// Adds an engine's or a socket's half (its `init`); its ``CoreStateLock`` reaches it by
    /// the slot it was given.
    func register<Half: SlottedCoreHalf>(_ half: Half) -> CoreStateLock<Half> {
        let slot = self.state.withLock { $0[keyPath: Half.table].insert(half) }
        return CoreStateLock(core: self, slot: slot)
    }

    /// Removes an engine's or a socket's half (its `deinit`).
    func unregister<Half: SlottedCoreHalf>(_ lock: CoreStateLock<Half>) {
        // Taken out in the section and released after it: the state may hold the last
        // reference to objects whose `deinit` locks again.
        var wake: [UnsafeContinuation<Void, Never>] = []
        let removed = self.state.withLock { core -> Half? in
            let removed = core[keyPath: Half.table].remove(lock.slot)
            if let removed { Half.leaving(removed, core: &core, wake: &wake) }
            return removed
        }
        withExtendedLifetime(removed) {}
        for reader in wake { reader.resume() }
    }

    /// Takes the manager's half out (its `deinit`): its sockets by namespace go with it, so
    /// sockets that hold this core no longer keep each other alive through it. Released after
    /// the section, as ``unregister(_:)`` does.
    func releaseManager() {
        // The engine's waiting readers are resumed: with no manager, reads are not held back.
        let (removed, readers) = self.state.withLock { ($0.manager.take(), $0.readWaiters.takeAll()) }
        withExtendedLifetime(removed) {}
        for reader in readers { reader.resume() }
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
        self.changeReading { $0.consumer(behind: behind) }
    }

    /// A stream of SocketIOConcurrency reached its hard bound (`true`) or drained or ended
    /// after that (`false`): while any is that far behind, the engine stops reading even while
    /// an awaited ack is outstanding (`InboundBacklog`).
    func consumer(farBehind: Bool) {
        self.changeReading { $0.consumer(farBehind: farBehind) }
    }

    /// An awaited ack the sockets' ack tables do not hold was asked for (`true`) or settled
    /// (`false`): a retry queue's emit (`.retries`). While one is outstanding, streams that are
    /// behind do not stop the reading its answer needs (`InboundBacklog`); the acks in the
    /// tables are counted by the sections that add and remove them
    /// (``State/withSocket(_:wake:_:)``).
    func ack(awaited: Bool) {
        self.changeReading { $0.ack(awaited: awaited) }
    }

    /// Feeds the session an input that may change its reading, in one section; when the
    /// session says `.resumeReading`, the engine's waiting readers are resumed after it. A
    /// pause needs no action: the readers ask the session (`SocketEngine.waitUntilReadable()`).
    /// Nothing happens in a core without a manager half.
    func changeReading(_ input: (inout SocketSessionMachine) -> SocketSessionMachine.Action?) {
        let readers = self.state.withLock { state -> [UnsafeContinuation<Void, Never>] in
            guard state.manager != nil, case .resumeReading? = input(&state.manager!.session) else { return [] }
            return state.readWaiters.takeAll()
        }
        for reader in readers { reader.resume() }
    }
}

/// A half of a core's state: the manager's, an engine's or a socket's, and where it sits in
/// the core's value.
protocol SocketCoreHalf {
    /// Runs `body` on the half at `slot` of `core` (the manager's half has no slot); readers
    /// of the engine to resume after the section go to `wake`.
    static func withHalf<Result, Failure: Error>(
        in core: inout SocketConnectionCore.State, slot: Int, wake: inout [UnsafeContinuation<Void, Never>],
        _ body: (inout Self) throws(Failure) -> Result
    ) throws(Failure) -> Result
}

/// One object's half of its core's state, locked through the core: the `state` of a
/// `SocketManager` (``ManagerStateLock``), a `SocketEngine` (``EngineStateLock``) or a
/// `SocketIOClient` (``SocketStateLock``).
///
/// - Important: An engine's or a socket's half goes with its object (its `deinit`): lock it
///   only while the object is held (`self.state.withLock` in a method; `withExtendedLifetime`
///   in a closure that captured the object weakly).
struct CoreStateLock<Half: SocketCoreHalf>: Sendable {
    let core: SocketConnectionCore
    /// Where the half is in its table of ``SocketConnectionCore/State`` (0 for the manager's).
    let slot: Int

    init(core: SocketConnectionCore, slot: Int = 0) {
        self.core = core
        self.slot = slot
    }

    /// Runs `body` with the half, in one critical section of the core.
    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: (inout Half) throws(Failure) -> Result) throws(Failure) -> Result {
        var wake: [UnsafeContinuation<Void, Never>] = []
        // Resumed after the section, also when the body throws.
        defer { for reader in wake { reader.resume() } }
        return try self.core.state.withLock { (state: inout SocketConnectionCore.State) throws(Failure) -> Result in
            try Half.withHalf(in: &state, slot: self.slot, wake: &wake, body)
        }
    }
}

/// The manager's half, locked through its core (the `state` of a `SocketManager`).
typealias ManagerStateLock = CoreStateLock<SocketManager.State>
/// An engine's half, locked through its core (the `state` of a `SocketEngine`).
typealias EngineStateLock = CoreStateLock<SocketEngine.State>
/// A socket's half, locked through its core (the `state` of a `SocketIOClient`).
typealias SocketStateLock = CoreStateLock<SocketIOClient.State>

extension SocketManager.State: SocketCoreHalf {
    @inline(__always)
    static func withHalf<Result, Failure: Error>(
        in core: inout SocketConnectionCore.State, slot: Int, wake: inout [UnsafeContinuation<Void, Never>],
        _ body: (inout Self) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(&core.manager!)
    }
}

/// A half the core keeps one of per object, in a slot table: an engine's or a socket's.
protocol SlottedCoreHalf: SocketCoreHalf {
    /// The core's table of such halves.
    static var table: WritableKeyPath<SocketConnectionCore.State, SlotTable<Self>> { get }

    /// The half was taken out of `core` (its object's `deinit`): what the core keeps about it
    /// is let go, in the same section.
    static func leaving(_ half: Self, core: inout SocketConnectionCore.State, wake: inout [UnsafeContinuation<Void, Never>])
}

extension SocketEngine.State: SlottedCoreHalf {
    static var table: WritableKeyPath<SocketConnectionCore.State, SlotTable<Self>> { \.engines }

    @inline(__always)
    static func withHalf<Result, Failure: Error>(
        in core: inout SocketConnectionCore.State, slot: Int, wake: inout [UnsafeContinuation<Void, Never>],
        _ body: (inout Self) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(&core.engines[slot])
    }

    static func leaving(_ half: Self, core: inout SocketConnectionCore.State, wake: inout [UnsafeContinuation<Void, Never>]) {}
}

extension SocketIOClient.State: SlottedCoreHalf {
    static var table: WritableKeyPath<SocketConnectionCore.State, SlotTable<Self>> { \.sockets }

    /// Through ``SocketConnectionCore/State/withSocket(_:wake:_:)``: what the section did to
    /// the socket's awaited acks is counted in the core.
    @inline(__always)
    static func withHalf<Result, Failure: Error>(
        in core: inout SocketConnectionCore.State, slot: Int, wake: inout [UnsafeContinuation<Void, Never>],
        _ body: (inout Self) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try core.withSocket(slot, wake: &wake, body)
    }

    /// Its awaited acks go with it.
    static func leaving(_ half: Self, core: inout SocketConnectionCore.State, wake: inout [UnsafeContinuation<Void, Never>]) {
        if half.session.awaitedAcks > 0 { core.awaitedAcksChanged(by: -half.session.awaitedAcks, wake: &wake) }
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
