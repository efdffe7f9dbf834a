package import EngineIOClient
package import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeIO
import RealtimeSync
import RealtimeTime

/// The engine as the I/O driver of `EngineIOProtocol.EngineClientStateMachine`: every input
/// goes to the machine under the engine's lock, and the actions it returns are performed
/// after the lock is released, in order.
extension SocketEngine {
    static let logTypeIO = "SocketEngine"

    // MARK: Driving the machine

    /// Feeds one input to the machine of attempt `generation` and performs its actions.
    ///
    /// A Socket.IO packet in one message (a WebSocket frame) for the manager that made this
    /// engine, with nothing being performed: the same section takes the turn and the core's
    /// step for it (``SocketManager/packetStep(_:in:)``: read, route, run the socket's
    /// machine), and the step's plan is performed under that turn, so an input another thread
    /// feeds meanwhile still waits behind it. Two sections per message: this one, and the
    /// turn's end, which also reads whether reads are held back now (the return value).
    @discardableResult
    package final func drive(_ generation: Int, _ input: (inout EngineClientStateMachine) -> [EngineClientAction]) -> Bool {
        enum Step {
            case turn(QueuedAction)
            case stepped(SocketManager, SocketManager.PacketPlan)
            case none(readsPaused: Bool)
        }
        let slot = self.state.slot
        let subclass = self.deliversThroughOpenMethods
        var wake: [UnsafeContinuation<Void, Never>] = []
        let step = self.core.state.withLock { core -> Step in
            // The engine's half is reached by mutating calls only: a read through the slot
            // table's getter would copy the whole half.
            guard let actions = core.engines[slot].feed(generation, input) else {
                return .none(readsPaused: self.readsPaused(in: core))
            }
            if !subclass, actions.count == 1, case .deliverMessage(let text) = actions[0],
                let message = Self.socketIOPacket(in: text.packet),
                let manager = core.engines[slot].takeTurnForCoreStep(generation: generation)
            {
                return .stepped(manager, manager.packetStep({ $0.receive(text: message) }, in: &core, wake: &wake))
            }
            guard let turn = core.engines[slot].queue(actions, generation: generation) else {
                return .none(readsPaused: self.readsPaused(in: core))
            }
            return .turn(turn)
        }
        for reader in wake { reader.resume() }
        // Consumed: the plan (the decoded packet) moves out instead of being copied.
        switch consume step {
        case .turn(let turn):
            return self.perform(turn)
        case .stepped(let manager, let plan):
            manager.deliver(plan)
            return self.performQueued()
        case .none(let readsPaused):
            // Another thread performs this input's actions: what it delivers may pause the
            // reading after this answer, so a `false` here can be one message late; the next
            // message's `drive` reads again, so at most one more message is read.
            return readsPaused
        }
    }

    // MARK: Reading backpressure

    /// Whether this engine's reads are held back: it is the engine its manager made, and the
    /// manager's session is behind (`readingPaused`: handler work queued on `handleQueue`, or
    /// a stream of SocketIOConcurrency that fell behind). Read in the caller's section.
    func readsPaused(in core: SocketConnectionCore.State) -> Bool {
        // Chained, not bound: binding the manager's half would copy it.
        core.manager?.session.readingPaused == true && core.manager?.coreEngine === self
    }

    /// ``readsPaused(in:)`` in a section of its own.
    package final var readsPaused: Bool {
        self.core.state.withLock { self.readsPaused(in: $0) }
    }

    /// Returns once reads may go on: waits with the core's readers until the session catches
    /// up (`SocketConnectionCore.changeReading(_:)`), the manager is released, or the task
    /// is cancelled (the engine closing cancels its tasks).
    package final func waitUntilReadable() async {
        // The check and the wait are in one section of the core: a resume cannot fall between.
        await self.core.state.suspend(on: \.readWaiters, cancelled: ()) { core in
            self.readsPaused(in: core) ? nil : ()
        }
    }

    /// A server error object read from the transport (`EngineServerError`): upstream's
    /// `checkAndHandleEngineError`, through the open `parseEngineMessage(_:)`, behind every
    /// action queued before it. Called directly, it overtook a CONNECT reply read just before
    /// it whose delivery another thread was still performing (a CI run saw the `error` and
    /// `disconnect` without the `connect`).
    package final func deliverServerError(_ text: String, generation: Int) {
        let turn = self.state.withLock { state -> QueuedAction? in
            guard state.attempt.generation == generation else { return nil }
            return state.turns.offer(QueuedAction(work: .serverError(text), generation: generation))
        }
        if let turn { self.perform(turn) }
    }

    /// A transport send finished: runs the completions of the writes it carried (through
    /// `writeID`), oldest first, then wakes the writers waiting for room
    /// (``waitForOutboundRoom()``): the send left the outbound buffers.
    package final func sendFinished(_ writeID: Int?, generation: Int) {
        _ = self.sendFinished(writeID, generation: generation, takingTurn: { _ in nil })
    }

    /// ``sendFinished(_:generation:)``, with `takeTurn` run on the attempt in the same section.
    package final func sendFinished(
        _ writeID: Int?, generation: Int,
        takingTurn takeTurn: (inout EngineConnectionAttempt) -> EngineWebSocketDriver.WriterTurn?
    ) -> EngineWebSocketDriver.WriterTurn? {
        var completions: [UncheckedSendable<() -> Void>] = []
        var waiters: [UnsafeContinuation<Bool, Never>] = []
        let result = self.state.withLock { state -> EngineWebSocketDriver.WriterTurn? in
            waiters = state.roomWaiters.takeAll()
            let result = takeTurn(&state.attempt)
            if let writeID, state.attempt.generation == generation {
                completions = state.attempt.completions(through: writeID)
            }
            return result
        }
        for completion in completions {
            completion.value()
        }
        for waiter in waiters { waiter.resume(returning: false) }
        return result
    }

    // MARK: Performing actions

    /// Performs the work this thread offered (``State/turns`` made it the performer), then what
    /// was queued meanwhile, oldest first, until none is left.
    ///
    /// Inputs fed meanwhile (by other threads, or re-entrantly by an action) queue behind and
    /// are performed here, so the transports see sends in the order the machine produced them.
    ///
    /// - Returns: whether reads are held back, as the turn's last section read it.
    @discardableResult
    func perform(_ turn: QueuedAction) -> Bool {
        self.perform(queued: turn)
        return self.performQueued()
    }

    /// Performs what was queued behind this thread's turn, oldest first, and ends the turn
    /// when nothing is left.
    ///
    /// - Returns: whether reads are held back (``readsPaused(in:)``), read in the section that
    ///   ended the turn: after everything the turn delivered, so a pause it caused is seen.
    @discardableResult
    private func performQueued() -> Bool {
        let slot = self.state.slot
        while true {
            let (batch, readsPaused) = self.core.state.withLock { core in
                let batch = core.engines[slot].nextBatch()
                return (batch, batch == nil && self.readsPaused(in: core))
            }
            guard let batch else { return readsPaused }
            for queued in batch { self.perform(queued: queued) }
        }
    }

    private func perform(queued: QueuedAction) {
        switch queued.work {
        case .machine(let actions): self.perform(actions, generation: queued.generation, client: queued.client)
        case .serverError(let text): self.parseEngineMessage(text)
        case .connect: self.startAttempt()
        case .closeReported(let reason):
            let client = self.client
            client?.engineDidClose(reason: reason)
        }
    }

    /// Performs the actions of one input, in order.
    private func perform(_ actions: [EngineClientAction], generation: Int, client: SocketEngineClient?) {
        var index = actions.startIndex
        while index < actions.endIndex {
            let action = actions[index]
            index += 1
            // A send's `carriesWrites` comes right after it, from the same input.
            var writeID: Int?
            if index < actions.endIndex, case .carriesWrites(let through) = actions[index] {
                writeID = through
                index += 1
            }
            self.perform(action, writeID: writeID, generation: generation, client: client)
        }
    }

    /// - Parameter client: the engine's client as of the section that queued the actions.
    private func perform(_ action: EngineClientAction, writeID: Int?, generation: Int, client: SocketEngineClient?) {
        switch action {
        case .sendPollingGET(let sid):
            self.pollingDriver.startGET(sid: sid, generation: generation)
        case .sendPollingPOST(let sid, let body):
            self.pollingDriver.startPOST(sid: sid, body: body, writeID: writeID, generation: generation)
        case .openWebSocket(let sid):
            self.webSocketDriver.start(sid: sid, generation: generation)
        case .sendWebSocketFrames(let frames):
            self.webSocketDriver.enqueue(.frames(frames, writeID: writeID), generation: generation)
        case .closeWebSocket:
            self.webSocketDriver.enqueue(.close, generation: generation)
        case .carriesWrites:
            // Taken with the send before it (`perform(_:generation:)`).
            break
        case .cancelPollingRequests:
            let tasks = self.state.withLock { state -> [Task<Void, Never>] in
                guard state.attempt.generation == generation else { return [] }
                return state.attempt.polling.takeTasks()
            }
            for task in tasks { task.cancel() }
        case .scheduleHeartbeatTimeout(let deadline):
            self.scheduleHeartbeat(at: deadline, generation: generation)
        case .cancelHeartbeatTimeout:
            let timer = self.state.withLock { state -> SocketTimer? in
                guard state.attempt.generation == generation else { return nil }
                defer { state.attempt.heartbeatTimer = nil }
                return state.attempt.heartbeatTimer
            }
            timer?.cancel()
        case .opened:
            self.didOpen(generation: generation)
        case .upgraded:
            self.didUpgrade(generation: generation)
        case .deliverMessage(let text):
            // Through the open `parseEngineMessage(_:)`, as upstream, so a subclass's override
            // sees every message; the class itself delivers as that method does, to the client
            // read in the section that queued this action (no section of its own).
            if self.deliversThroughOpenMethods {
                self.parseEngineMessage(text.packet)
            } else {
                self.deliverMessage(text.packet, to: client)
            }
        case .deliverBinaryMessage(let bytes):
            self.parseEngineData(Data(bytes))
        case .pongReceived:
            let client = self.client
            client?.engineDidReceivePong()
        case .pingReceived:
            // The machine wrote the pong just before: upstream's `ping` and `pong` events.
            let client = self.client
            client?.engineDidReceivePing()
            client?.engineDidSendPong()
        case .pingSent:
            // Engine.IO 3: the client's own ping, upstream's `.ping` client event for socket.io 2.
            let client = self.client
            client?.engineDidSendPing()
        case .closed(let reason):
            self.didClose(reason, generation: generation)
        }
    }

    private func didOpen(generation: Int) {
        let client = self.state.withLock { state -> SocketEngineClient? in
            guard state.attempt.generation == generation else { return nil }
            return state.client
        }
        guard let client else { return }
        DefaultSocketLogger.Logger.log("Handshake complete", type: SocketEngine.logTypeIO)
        client.engineDidOpen(reason: "Connect")
    }

    private func didUpgrade(generation: Int) {
        let result = self.state.withLock { state -> (SocketEngineClient?, HTTPHeaders)? in
            guard state.attempt.generation == generation else { return nil }
            return (state.client, state.attempt.webSocket.connection?.responseHeaders ?? HTTPHeaders())
        }
        guard let (client, responseHeaders) = result else { return }
        DefaultSocketLogger.Logger.log("Upgraded to WebSocket", type: SocketEngine.logTypeIO)
        // Polling is over for this session: its idle connections would only sit open.
        self.transports?.http?.closeIdleConnections()
        var headers: [String: String] = [:]
        for (name, value) in responseHeaders {
            headers[name] = value
        }
        client?.engineDidWebsocketUpgrade(headers: headers)
    }

    /// The machine ended the session: tear down the attempt and tell the client once.
    private func didClose(_ reason: EngineCloseReason, generation: Int) {
        let result = self.state.withLock { state -> (EngineConnectionAttempt.Teardown, SocketEngineClient?, Bool)? in
            guard state.attempt.generation == generation else { return nil }
            let teardown = state.attempt.takeResources(keepingWebSocketWriter: reason == .clientClosed)
            let alreadyNotified = state.attempt.closeReport != .pending
            state.attempt.closeReport = .reported
            return (teardown, state.client, alreadyNotified)
        }
        guard let (teardown, client, alreadyNotified) = result else { return }
        self.release(teardown)
        // Nothing more leaves these buffers: the waiters go on and find the engine closed.
        self.wakeRoomWaiters()
        // Pooled polling connections end with the session: none stays open after a
        // disconnect, and a reconnection after a ping timeout (a dead network path) opens fresh
        // ones instead of sending its handshake over a connection that may be dead too.
        self.transports?.http?.closeIdleConnections()
        guard !alreadyNotified else { return }

        switch reason {
        case .clientClosed:
            client?.engineDidClose(reason: "Disconnect")
        case .serverClosed:
            client?.engineDidClose(reason: "Socket Disconnected")
        case .pingTimeout:
            client?.engineDidClose(reason: "Ping timeout")
        case .transportError(let message) where message == EngineWebSocketDriver.closedReason:
            client?.engineDidClose(reason: message)
        case .transportError(let message):
            DefaultSocketLogger.Logger.error("\(message)", type: SocketEngine.logTypeIO)
            client?.engineDidError(reason: message)
            client?.engineDidClose(reason: message)
        case .protocolError(let error):
            let message = "Engine.IO protocol error: \(error)"
            DefaultSocketLogger.Logger.error("\(message)", type: SocketEngine.logTypeIO)
            client?.engineDidError(reason: message)
            client?.engineDidClose(reason: message)
        }
    }

    /// Cancels an attempt's tasks, closes its WebSocket and lets a client close that is
    /// still under way reach the server (``EnginePollingDriver/EndingClose``).
    ///
    /// Each close is the ended attempt's last task, kept in ``State/endings`` until it ends
    /// (``EngineEndingTasks``: bounded, and cancelled with the engine). It holds the
    /// WebSocket or the requests, not the engine.
    func release(_ teardown: EngineConnectionAttempt.Teardown) {
        for task in teardown.tasks {
            task.cancel()
        }
        teardown.timer?.cancel()
        if let webSocket = teardown.webSocket {
            self.keepEnding(.webSocketClose) { await webSocket.close(code: 1000, reason: "") }
        }
        if let close = teardown.pollingClose {
            // The engine is not kept alive by its ended attempt's close.
            let driver: @Sendable () -> EnginePollingDriver? = { [weak self] in self?.pollingDriver }
            self.keepEnding(.pollingClose) { await close.finish(driver: driver) }
        }
    }

    /// Starts `operation` as an ending task, forgotten when it ends.
    private func keepEnding(_ kind: EngineEndingTasks.Kind, _ operation: @escaping @Sendable () async -> Void) {
        // Made and recorded in one critical section: the task's end takes the same lock to
        // forget it, so it cannot run before the record exists.
        self.state.withLock { state in
            state.endings.start(kind) { [weak self] id in
                await operation()
                // Held through the section: the engine's half goes with the engine.
                guard let self else { return }
                withExtendedLifetime(self) { self.state.withLock { $0.endings.ended(id) } }
            }
        }
    }

    // MARK: Heartbeat

    /// Replaces the heartbeat timer: at `deadline`, `heartbeatTimerFired(now:)`, from the
    /// manager's timer source.
    private func scheduleHeartbeat(at deadline: MonotonicInstant, generation: Int) {
        let timers = self.timers
        let timer = timers.schedule(at: deadline) { [weak self] in
            self?.drive(generation) { $0.heartbeatTimerFired(now: timers.now) }
        }
        let previous = self.state.withLock { state -> SocketTimer? in
            guard state.attempt.generation == generation else { return timer }
            defer { state.attempt.heartbeatTimer = timer }
            return state.attempt.heartbeatTimer
        }
        previous?.cancel()
    }
}

// MARK: The drivers' host

extension SocketEngine: EngineDriverHost {
    /// The polling driver over this engine.
    var pollingDriver: EnginePollingDriver { EnginePollingDriver(host: self) }

    /// The WebSocket driver over this engine.
    var webSocketDriver: EngineWebSocketDriver { EngineWebSocketDriver(host: self) }

    /// What requests use: the current attempt's snapshot, or (before the first `connect()`)
    /// the options as set now.
    package final var requestOptions: EngineRequestOptions {
        self.state.withLock { $0.requestOptions }
    }

    package final func withAttempt<Result>(_ body: (inout EngineConnectionAttempt) -> Result) -> Result {
        self.state.withLock { body(&$0.attempt) }
    }
}
