#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
package import RealtimeTime
import Glibc
import CRealtimeOpenSSL
package import Dispatch
import RealtimeSync
import Synchronization

/// Receives readiness notifications from the ``EventLoop``.
///
/// - Important: ``handleReadiness(_:)`` runs on the loop thread. It must not block and must not
///   call back into the loop's registration API while holding its own lock in a way that could
///   wait on the loop (the loop never holds its lock while calling a handler, so registering or
///   deregistering from a handler is allowed).
package protocol EventLoopHandler: AnyObject, Sendable {
    /// The `epoll` event bits (`EPOLLIN`, `EPOLLOUT`, `EPOLLERR`, `EPOLLHUP`, `EPOLLRDHUP`)
    /// that fired for the handler's file descriptor.
    func handleReadiness(_ events: UInt32)

    /// The loop shut down (or could not start) while the handler was registered: fail what
    /// waits with `error` (`.eventLoopShutDown`) and close. Called once, on the loop thread
    /// as it ends (or on the registering thread when the loop never ran); the registration is
    /// gone by then.
    func loopDidShutDown(_ error: NetworkError)
}

/// One `epoll` event loop: one dedicated thread that waits for socket readiness and timer
/// deadlines and resumes the tasks waiting for them.
///
/// ## Threading model
/// Loops come in an ``EventLoopGroup`` (one per core by default; `EventLoopGroup.shared` is the
/// process default), which starts each loop's thread and owns the resolver threads its loops'
/// connections use. Every connection lives on one loop: its socket is registered there, and its
/// timers and the tasks of the layers above that prefer a loop are that loop's. The thread
/// blocks in `epoll_wait(2)` and does nothing else: it never reads or writes a socket
/// itself. Sockets are non-blocking. A task that wants to read or write first attempts the
/// syscall on its own thread (the fast path: no hop through the loop when data is already there
/// or buffer space is free). Only when the kernel answers `EAGAIN` does the task store an
/// `UnsafeContinuation` in the socket's state (under the socket's lock) and suspend; the loop
/// thread, on the next readiness event for that descriptor, takes the continuation out under the
/// same lock and resumes it. The resumed task then runs again on Swift's cooperative pool and
/// retries the syscall. No thread is ever blocked on behalf of one connection, and no blocking
/// syscall runs on the cooperative pool.
///
/// ## Edge-triggered registration
/// Each descriptor is registered once, for `EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET`, and never
/// modified. Edge-triggered mode means the loop is only told about *changes* of readiness, so a
/// handler counts readiness edges in per-direction epochs: a task snapshots the epoch before its
/// syscall, and when that syscall returns `EAGAIN` it only suspends if no edge arrived since the
/// snapshot (otherwise it retries at once). This closes the race between "`EAGAIN`" and
/// "continuation stored" without any `epoll_ctl` per wait.
///
/// ## Shutting down
/// ``shutdown()`` (the group's) ends the thread after its current turn. As it ends, every
/// registered handler is told (``EventLoopHandler/loopDidShutDown(_:)``: a socket fails its
/// waiting read and write with `.eventLoopShutDown` and closes), every pending timer's failure
/// handler runs with that error (timers without one are dropped), and jobs of tasks that prefer
/// the loop move to the global executor, as do jobs enqueued later, so no task waits for a
/// thread that is gone. Registering a descriptor or scheduling a timer afterwards fails at once
/// with the same error. A loop whose `epoll` descriptor or thread could not be made (the
/// process out of descriptors) starts in that state instead of trapping.
///
/// ## Wake-ups and timers
/// An `eventfd` wakes the loop when a timer earlier than its current sleep deadline is
/// scheduled. Timers (connect and name-resolution deadlines, and the heartbeats, ack deadlines,
/// reconnection tries and idle watchdogs of the layers above) live in a ``TimerHeap`` under the
/// loop's lock: scheduling and cancelling are O(log n), the next deadline is O(1), and timers
/// with equal deadlines fire in the order they were scheduled. They run their callback on the
/// loop thread; callbacks must be short and non-blocking.
///
/// ## Cancellation
/// The loop itself knows nothing about task cancellation: waiting operations wrap their
/// suspension in `withTaskCancellationHandler`, and the cancellation handler fails the stored
/// continuation (under the socket's lock) from whichever thread cancels. A continuation is
/// therefore resumed exactly once: by the loop (readiness, timer) or by the canceller or by
/// `close()`, whichever takes it out of the socket's state first.
package final class EventLoop: Sendable {
    /// A scheduled timer: cancelled through the handle, which knows the loop that holds it, so a
    /// timer can never be cancelled on (or looked up in) another loop.
    package struct ScheduledTimer: Sendable {
        /// The loop whose heap holds the timer.
        package let loop: EventLoop
        /// `nil` when the loop was shut down before the timer was scheduled.
        fileprivate let id: Timers.ID?

        /// Cancels the timer; a no-op if it already fired (or was taken to fire), was
        /// cancelled, or its loop shut down.
        ///
        /// Cancelling never wakes the loop: if it sleeps until this timer's deadline, it wakes
        /// then, finds nothing due and sleeps again.
        package func cancel() {
            guard let id = self.id else { return }
            self.loop.cancelTimer(id)
        }

        /// Whether the timer is scheduled and has not fired or been cancelled (for tests).
        package var isScheduled: Bool {
            guard let id = self.id else { return false }
            return self.loop.isScheduled(id)
        }
    }

    /// A timer's callbacks: `fire` at the deadline, or `fail` if the loop shuts down first.
    fileprivate struct TimerCallbacks {
        let fire: @Sendable () -> Void
        let fail: (@Sendable (NetworkError) -> Void)?
    }

    /// The loop's timers: their callbacks by (deadline, scheduling order).
    fileprivate typealias Timers = TimerHeap<TimerCallbacks>

    private struct State {
        var handlers: [UInt64: any EventLoopHandler] = [:]
        var nextHandlerID: UInt64 = 1
        var timers = Timers()
        /// When the loop thread is inside `epoll_wait`: the deadline it sleeps until
        /// (`nil` = forever). `.some` only while sleeping.
        var sleeping: MonotonicInstant?? = nil
        /// Jobs of tasks that prefer this loop as their executor (see `EventLoop+TaskExecutor`).
        ///
        /// Bounded by construction, so it has no limit of its own: a job here is a task (the
        /// runtime enqueues a task itself, once each time it becomes runnable, and never again
        /// before it ran), so the list never holds more entries than there are tasks preferring
        /// the loop, and nothing enqueues per write or per readiness edge. Those tasks are:
        /// - in this package's lower layers, at most one per connection and direction: a
        ///   `TLSStream`'s flusher (started only by the immediate write that takes the flusher
        ///   role, so while it runs later immediate writes return 0 and start nothing) and a
        ///   `WebSocketFrameWriter`'s pending write (it holds the writer's lock, so while it
        ///   runs later immediate sends return `false` and start nothing); each owned by its
        ///   stream or writer, which cancels it when it closes;
        /// - the SocketIO engine's tasks, a fixed few per connection attempt (a polling GET,
        ///   a POST, the WebSocket receive loop, its writer, its close);
        /// - tasks a caller runs under `withTaskExecutorPreference(loop)`, with
        ///   their child tasks: as many as that caller starts.
        /// A peer cannot add any: a readiness edge resumes at most the one reading and the one
        /// writing continuation a socket holds, both of tasks counted above. A fast producer
        /// meets backpressure before the loop: a `write` waits for the socket, an immediate
        /// write the kernel does not take makes later ones return "not taken".
        var jobs: [UnownedJob] = []
        /// Set by ``shutdown()`` (or at init when the loop cannot run): what registrations,
        /// timers and waits fail with from now on.
        var shutdownError: NetworkError?
        /// The thread is ending (or never started): jobs go to the global executor.
        var forwardsJobs = false
        /// The thread ended (or never started), after failing what was registered.
        var threadEnded = false
        /// Tasks waiting in ``waitUntilStopped()``.
        var stopWaiters: [UnsafeContinuation<Void, Never>] = []
        /// While the loop thread runs a round of its turn's jobs: the work they hand to Dispatch
        /// queues (``async(on:_:)``), given to each queue in one `async` when the round is done.
        var handoffs: DispatchHandoffBatch?
    }

    private static let wakeupID: UInt64 = 0
    private static let maxEventsPerWait: Int32 = 256

    private let epollFD: Int32
    private let wakeupFD: Int32
    private let state = LockedValue(State())
    /// The loop thread's id, set once by the thread itself before it handles anything.
    private let loopThread = Atomic<UInt>(0)
    /// The loop thread's kernel id (`/proc/self/task/<id>`), set once by the thread.
    private let kernelThreadID = Atomic<Int32>(0)
    /// How many times the thread has asked the kernel for readiness (`epoll_wait`).
    private let polls = Atomic<Int>(0)
    /// The loop's name in messages, e.g. `RTIO-1-0` (group 1, loop 0).
    package let name: String
    /// The resolver of the loop's group: its connections' names are resolved there.
    package let resolver: NameResolver

    /// Makes a loop and starts its thread (an ``EventLoopGroup`` does; nothing else should).
    ///
    /// Never traps: when the `epoll` or `eventfd` descriptor or the thread cannot be made (the
    /// process out of descriptors or threads), the loop starts shut down, with
    /// `.tooManyOpenFiles` or `.eventLoopShutDown`, and every connection on it fails with that.
    init(name: String, resolver: NameResolver) {
        // No process-wide SIGPIPE change: every socket write of this module passes MSG_NOSIGNAL
        // (TLS included: OpenSSL only touches memory BIOs), so a write to a socket whose peer is
        // gone fails with EPIPE instead of killing the process, without altering the host app.
        self.name = name
        self.resolver = resolver
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        let epollErrno = epollFD < 0 ? errno : 0
        let wakeupFD = epollFD < 0 ? -1 : eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        let wakeupErrno = wakeupFD < 0 ? errno : 0
        self.epollFD = epollFD
        self.wakeupFD = wakeupFD
        if epollFD < 0 || wakeupFD < 0 {
            let code = epollFD < 0 ? epollErrno : wakeupErrno
            self.startStopped(SystemErrno.descriptorError(code, operation: "event loop \(name): epoll/eventfd"))
            return
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLET.rawValue
        event.data.u64 = Self.wakeupID
        _ = epoll_ctl(self.epollFD, EPOLL_CTL_ADD, self.wakeupFD, &event)

        var thread = pthread_t()
        let unmanaged = Unmanaged.passRetained(self)
        let rc = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let loop = Unmanaged<EventLoop>.fromOpaque(argument).takeRetainedValue()
                loop.run()
                return nil
            }, unmanaged.toOpaque())
        guard rc == 0 else {
            unmanaged.release()
            self.startStopped(
                NetworkError(.eventLoopShutDown, "event loop \(name): pthread_create failed (\(SystemErrno.describe(rc)))"))
            return
        }
        pthread_detach(thread)
    }

    deinit {
        // Only once the thread ended and nothing registered holds the loop: every socket keeps
        // its loop, so no `epoll_ctl` can reach a closed (or reused) descriptor number.
        if self.epollFD >= 0 { Glibc.close(self.epollFD) }
        if self.wakeupFD >= 0 { Glibc.close(self.wakeupFD) }
    }

    /// A loop that could not start: shut down from birth, its thread "ended".
    private func startStopped(_ error: NetworkError) {
        self.state.withLock { state in
            state.shutdownError = error
            state.forwardsJobs = true
            state.threadEnded = true
        }
    }

    // MARK: Lifecycle

    /// Ends the loop: its thread stops after the current turn and fails what is registered on
    /// the loop with `.eventLoopShutDown` (see "Shutting down" above). Idempotent; returns at
    /// once (``waitUntilStopped()`` waits for the thread).
    package func shutdown() {
        let mustWake = self.state.withLock { state -> Bool in
            guard state.shutdownError == nil else { return false }
            state.shutdownError = NetworkError(.eventLoopShutDown, "the event loop \(self.name) was shut down")
            return true
        }
        if mustWake { self.wakeUp() }
    }

    /// Suspends until the loop's thread has ended (after ``shutdown()``), without blocking a
    /// thread.
    package func waitUntilStopped() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let ended = self.state.withLock { state -> Bool in
                if state.threadEnded { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// The loop thread's kernel id (`/proc/self/task/<id>`), `0` before it runs (for tests).
    package var threadKernelID: Int32 { self.kernelThreadID.load(ordering: .relaxed) }

    /// How many times the loop thread has called `epoll_wait`, whether it slept or only
    /// looked (for tests and benchmarks: a turn is one call).
    package var pollCount: Int { self.polls.load(ordering: .relaxed) }

    /// Whether ``shutdown()`` was called (or the loop could not start).
    package var isShutDown: Bool { self.state.withLock { $0.shutdownError != nil } }

    // MARK: Registration

    /// Registers a non-blocking descriptor for edge-triggered read and write readiness.
    ///
    /// The loop keeps a strong reference to `handler` until ``deregister(fileDescriptor:id:)``.
    /// - Returns: the registration id to pass to ``deregister(fileDescriptor:id:)``.
    /// - Throws: `.eventLoopShutDown` if the loop was shut down (the caller closes the
    ///   descriptor), `.systemError` if `epoll_ctl` fails.
    package func register(fileDescriptor: Int32, handler: any EventLoopHandler) throws(NetworkError) -> UInt64 {
        let id = try self.state.withLock { state throws(NetworkError) in
            if let error = state.shutdownError { throw error }
            let id = state.nextHandlerID
            state.nextHandlerID &+= 1
            state.handlers[id] = handler
            return id
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        event.data.u64 = id
        if epoll_ctl(self.epollFD, EPOLL_CTL_ADD, fileDescriptor, &event) != 0 {
            let code = errno
            _ = self.state.withLock { $0.handlers.removeValue(forKey: id) }
            throw NetworkError(.systemError, "epoll_ctl(ADD) failed: \(SystemErrno.describe(code))")
        }
        return id
    }

    /// Removes a descriptor from the loop. Call it before closing the descriptor.
    ///
    /// A readiness event already taken from the kernel may still be delivered to the handler
    /// once after this returns; handlers must tolerate that (they check their own closed state).
    package func deregister(fileDescriptor: Int32, id: UInt64) {
        var event = epoll_event()
        _ = epoll_ctl(self.epollFD, EPOLL_CTL_DEL, fileDescriptor, &event)
        _ = self.state.withLock { $0.handlers.removeValue(forKey: id) }
    }

    // MARK: Introspection

    /// How many descriptors are registered now (for leak checks in tests: every open socket
    /// of this module is one).
    package var registeredDescriptorCount: Int {
        self.state.withLock { $0.handlers.count }
    }

    /// How many timers are scheduled and not yet fired or cancelled (for leak checks in tests).
    package var pendingTimerCount: Int {
        self.state.withLock { $0.timers.count }
    }

    fileprivate func isScheduled(_ id: Timers.ID) -> Bool {
        self.state.withLock { $0.timers.contains(id) }
    }

    // MARK: Timers

    /// Runs `callback` on the loop thread at (or shortly after) `deadline`.
    ///
    /// - Parameters:
    ///   - onShutdown: runs instead of `callback` if the loop shuts down before the deadline
    ///     (on the loop thread as it ends), or at once, on the calling thread before this
    ///     returns, if it is shut down already. Without it such a timer is dropped.
    /// - Returns: the timer's handle; cancel it through ``ScheduledTimer/cancel()``.
    /// - Important: `callback` runs on the loop thread; it must be short and never block.
    @discardableResult
    package func scheduleTimer(
        at deadline: MonotonicInstant,
        onShutdown: (@Sendable (NetworkError) -> Void)? = nil,
        _ callback: @escaping @Sendable () -> Void
    ) -> ScheduledTimer {
        let callbacks = TimerCallbacks(fire: callback, fail: onShutdown)
        let (id, mustWake, refused) = self.state.withLock { state -> (Timers.ID?, Bool, NetworkError?) in
            if let error = state.shutdownError { return (nil, false, error) }
            let id = state.timers.schedule(at: deadline, callbacks)
            var mustWake = false
            if case .some(let sleepDeadline) = state.sleeping {
                if let sleepDeadline { mustWake = deadline < sleepDeadline } else { mustWake = true }
                if mustWake { state.sleeping = .some(deadline) }
            }
            return (id, mustWake, nil)
        }
        if let refused { onShutdown?(refused) }
        if mustWake { self.wakeUp() }
        return ScheduledTimer(loop: self, id: id)
    }

    /// Cancels a timer of this loop (through ``ScheduledTimer/cancel()`` only).
    fileprivate func cancelTimer(_ id: Timers.ID) {
        // The cancelled callback is released here, after the lock: its captures' deinits
        // never run inside it.
        _ = self.state.withLock { $0.timers.cancel(id) }
    }

    /// Whether the caller runs on the loop thread.
    package var isCurrentThread: Bool {
        self.loopThread.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    /// Queues a job to run on the loop thread after the current batch of events; once the
    /// thread ended, on the global executor instead.
    func enqueueJob(_ job: UnownedJob) {
        let (mustWake, forward) = self.state.withLock { state -> (Bool, Bool) in
            if state.forwardsJobs { return (false, true) }
            state.jobs.append(job)
            // Only a sleeping loop needs the eventfd; a running one drains jobs before sleeping.
            guard state.sleeping != nil else { return (false, false) }
            state.sleeping = .some(.some(.now))
            return (true, false)
        }
        if forward { Self.forwardToGlobalExecutor(job) }
        if mustWake { self.wakeUp() }
    }

    /// Whether ``async(on:_:)`` holds a turn's work to its end (the default); `false` hands each
    /// item over at once, as before it existed (the broadcast soak's A/B, `--no-handoff-batching`).
    package static var batchesHandoffs: Bool {
        get { Self.handoffBatching.load(ordering: .relaxed) }
        set { Self.handoffBatching.store(newValue, ordering: .relaxed) }
    }
    private static let handoffBatching = Atomic<Bool>(true)

    /// Runs `work` on `queue`, with `queue.async`; from a job running on this loop's thread,
    /// at the end of the round of jobs it runs in instead (see `runJobs`), with the rest of the
    /// work that round's jobs hand to the same queue, in one `async`.
    ///
    /// A turn runs the jobs of every socket that had data; handing each one's work to an idle
    /// serial queue on its own wakes a Dispatch worker per item (the broadcast soak's handlers,
    /// BENCHMARKS.md). The items of one queue keep their order and run one after another on it;
    /// no item waits for more than the rest of its round (the jobs that were runnable when the
    /// round began), so no timer and no later readiness edge comes before it. From a timer's
    /// callback or any other thread, the work goes at once.
    package func async(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        if self.isCurrentThread && Self.handoffBatching.load(ordering: .relaxed) {
            let held = self.state.withLock { state -> Bool in
                guard state.handoffs != nil else { return false }
                state.handoffs!.add(work, for: queue)
                return true
            }
            if held { return }
        }
        queue.async(execute: work)
    }

    /// Runs a job of a task that prefers a loop whose thread ended on the global executor: the
    /// task goes on (and meets its socket's `.eventLoopShutDown`) instead of waiting forever.
    private static func forwardToGlobalExecutor(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }

    private func wakeUp() {
        var one: UInt64 = 1
        _ = write(self.wakeupFD, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: The loop thread

    private func run() {
        let capacity = Int(Self.maxEventsPerWait)
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var dueTimers: [@Sendable () -> Void] = []
        var jobs: [UnownedJob] = []
        self.loopThread.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        self.kernelThreadID.store(currentKernelThreadID(), ordering: .relaxed)
        nameCurrentThread(self.name)
        while true {
            let timeout: Int32? = self.state.withLock { state in
                if state.shutdownError != nil { return nil }
                if !state.jobs.isEmpty {
                    // Poll without sleeping, so queued jobs never starve I/O and vice versa.
                    state.sleeping = nil
                    return 0
                }
                guard let earliest = state.timers.earliestDeadline else {
                    state.sleeping = .some(nil)
                    return -1
                }
                // With timers pending the loop sleeps at most `maximumSleep`, so a timer another
                // thread schedules later than that needs no wake-up (see `scheduleTimer`).
                let next = min(earliest, MonotonicInstant.now + Self.maximumSleep)
                state.sleeping = .some(next)
                return Self.milliseconds(until: next)
            }
            guard let timeout else { break }
            self.polls.add(1, ordering: .relaxed)
            let count = epoll_wait(self.epollFD, events, Self.maxEventsPerWait, timeout)
            self.state.withLock { $0.sleeping = nil }
            if count > 0 {
                for index in 0..<Int(count) {
                    let event = events[index]
                    let id = event.data.u64
                    if id == Self.wakeupID {
                        var value: UInt64 = 0
                        _ = read(self.wakeupFD, &value, MemoryLayout<UInt64>.size)
                        continue
                    }
                    let handler = self.state.withLock { $0.handlers[id] }
                    handler?.handleReadiness(event.events)
                }
            }
            let now = MonotonicInstant.now
            self.state.withLock { state in
                while let callbacks = state.timers.popEarliest(dueAt: now) {
                    dueTimers.append(callbacks.fire)
                }
            }
            for callback in dueTimers { callback() }
            dueTimers.removeAll(keepingCapacity: true)
            self.runJobs(&jobs)
        }
        self.finishShutdown()
    }

    /// On the loop thread as it ends: fails the handlers and timers and hands the jobs over.
    private func finishShutdown() {
        let (error, handlers, timers, jobs) = self.state.withLock { state in
            let error = state.shutdownError ?? NetworkError(.eventLoopShutDown, "the event loop \(self.name) ended")
            let handlers = Array(state.handlers.values)
            state.handlers = [:]
            var timers: [TimerCallbacks] = []
            while let callbacks = state.timers.popEarliest(dueAt: .distantFuture) { timers.append(callbacks) }
            // From here on enqueueJob forwards: no job is left behind between the two.
            state.forwardsJobs = true
            let jobs = state.jobs
            state.jobs = []
            return (error, handlers, timers, jobs)
        }
        for handler in handlers { handler.loopDidShutDown(error) }
        for timer in timers { timer.fail?(error) }
        for job in jobs { Self.forwardToGlobalExecutor(job) }
        let waiters = self.state.withLock { state in
            state.threadEnded = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs the queued jobs in rounds: each round swaps the queue out (so its jobs may enqueue
    /// more), runs them, then hands the work they gave ``async(on:_:)`` to its queues, one
    /// `async` per queue. The jobs a round enqueued run in the next round of the same turn,
    /// without polling the kernel in between; no new round starts once ``maximumJobsPerTurn``
    /// jobs ran (a round runs all of its jobs, so a turn may run a few more). A round's end
    /// and the next one's start are one critical section.
    private func runJobs(_ jobs: inout [UnownedJob]) {
        self.state.withLock { state in Self.startRound(&jobs, in: &state) }
        var ran = 0
        while !jobs.isEmpty {
            ran += jobs.count
            for job in jobs { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
            jobs.removeAll(keepingCapacity: true)
            let startsAnotherRound = ran < Self.maximumJobsPerTurn
            let batches = self.state.withLock { state in
                let batches = state.handoffs?.take() ?? []
                state.handoffs = nil
                if startsAnotherRound { Self.startRound(&jobs, in: &state) }
                return batches
            }
            for batch in batches {
                let items = batch.items
                if items.count == 1 {
                    batch.queue.async(execute: items[0])
                } else {
                    batch.queue.async { DispatchHandoffBatch.run(items) }
                }
            }
        }
    }

    /// Takes the queued jobs into `jobs` (empty) and, when there are any, starts holding the
    /// work they hand to Dispatch queues.
    private static func startRound(_ jobs: inout [UnownedJob], in state: inout State) {
        swap(&state.jobs, &jobs)
        if !jobs.isEmpty { state.handoffs = DispatchHandoffBatch() }
    }

    /// How many jobs one turn of the loop runs before it starts no new round and polls for I/O
    /// and timers again.
    ///
    /// A job that a job enqueued runs in the same turn: a task on the loop that another task
    /// on it resumes (an awaited ack, resumed by the reading task) goes on without an
    /// `epoll_wait` of zero timeout first, one system call fewer per round trip. The bound
    /// keeps a task that yields in a loop from holding readiness and timers back.
    static let maximumJobsPerTurn = 1024

    /// The longest the loop sleeps while it has timers. A timer scheduled from another thread
    /// wakes the sleeping loop only when it is due before the loop wakes anyway; without a
    /// bound, each far timer scheduled off the loop (an ack's deadline: 5 s after an emit
    /// from another thread, while the loop sleeps until a heartbeat tens of seconds away) cost
    /// an `eventfd` write and a wake-up of the loop. With it, only timers due within a second
    /// do; a loop with timers wakes at least once a second to look.
    static let maximumSleep: TimeAmount = .seconds(1)

    /// Milliseconds to sleep until `deadline`, rounded up, clamped to `Int32`.
    private static func milliseconds(until deadline: MonotonicInstant) -> Int32 {
        let remaining = deadline - MonotonicInstant.now
        if remaining <= .zero { return 0 }
        return Int32(clamping: remaining.millisecondsRoundedUp)
    }
}
#endif
