import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeIO

/// The engine as the I/O driver of `EngineIOProtocol.EngineClientStateMachine`: every input
/// goes to the machine under the engine's lock, and the actions it returns are performed
/// after the lock is released, in order.
extension SocketEngine {
    static let logTypeIO = "SocketEngine"

    // MARK: Tasks

    /// Starts a transport task (WebSocket receive and write loops, polling GET and POST): on
    /// the event loop thread (RealtimeIO's `EventLoop` as task executor) where there is one,
    /// so a readiness event resumes the task in place instead of waking a thread of the
    /// cooperative pool.
    ///
    /// - Important: These tasks only frame, parse and hand off (the manager delivers to user
    ///   code on its `handleQueue`); nothing they run blocks (name resolution runs on
    ///   RealtimeIO's resolver threads). A TLS handshake's computation does run on the loop.
    static func engineTask(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        return Task(executorPreference: EventLoop.shared, operation: operation)
        #else
        return Task(operation: operation)
        #endif
    }

    // MARK: Driving the machine

    /// Feeds one input to the machine of attempt `generation` and performs its actions.
    func drive(_ generation: Int, _ input: (inout EngineClientStateMachine) -> [EngineClientAction]) {
        let performer = self.state.withLock { state -> Bool in
            guard state.session.generation == generation else { return false }
            return state.queue(state.session.number(input(&state.session.machine)), generation: generation)
        }
        if performer { self.performQueuedActions() }
    }

    /// Hands waiting writes to the machine when the transport can take them.
    func feedWrites(generation: Int) {
        let performer = self.state.withLock { state -> Bool in
            guard state.session.generation == generation else { return false }
            let writes = state.session.takeFeedableWrites()
            guard !writes.isEmpty else { return false }
            let ticket = state.session.sendsIssued
            for write in writes {
                if let completion = write.completion {
                    state.session.fed.append(EngineSession.FedWrite(ticket: ticket, completion: completion))
                }
            }
            return state.queue(state.session.number(state.session.machine.send(writes.flatMap(\.packets))),
                               generation: generation)
        }
        if performer { self.performQueuedActions() }
    }

    /// A transport send finished: runs the completions of the writes it carried.
    func sendFinished(_ sendIndex: Int?, generation: Int) {
        guard let sendIndex else { return }
        let completions = self.state.withLock { state -> [UncheckedSendable<() -> ()>] in
            guard state.session.generation == generation else { return [] }
            return state.session.completions(through: sendIndex)
        }
        for completion in completions {
            completion.value()
        }
    }

    // MARK: Performing actions

    /// Performs queued actions, oldest first, until none is left (see ``State/queue(_:generation:)``).
    ///
    /// Only the thread that ``State/queue(_:generation:)`` named performer runs this; inputs
    /// fed meanwhile (by other threads, or re-entrantly by an action) queue behind and are
    /// performed here, so the transports see sends in the order the machine produced them.
    func performQueuedActions() {
        while let batch = self.state.withLock({ state -> [SocketEngine.QueuedAction]? in
            guard !state.actionQueue.isEmpty else {
                state.performingActions = false
                return nil
            }
            defer { state.actionQueue = [] }
            return state.actionQueue
        }) {
            for queued in batch {
                self.perform(queued.numbered, generation: queued.generation)
            }
        }
    }

    private func perform(_ numbered: EngineSession.NumberedAction, generation: Int) {
        switch numbered.action {
        case let .sendPollingGET(sid):
            self.startPollingGET(sid: sid, generation: generation)
        case let .sendPollingPOST(sid, body):
            self.startPollingPOST(sid: sid, body: body, sendIndex: numbered.sendIndex, generation: generation)
            self.reportSentPings(inPollingBody: body)
        case let .openWebSocket(sid):
            self.startWebSocket(sid: sid, generation: generation)
        case let .sendWebSocketFrames(frames):
            self.enqueueWebSocket(.frames(frames, sendIndex: numbered.sendIndex), generation: generation)
            self.reportSentPings(inWebSocketFrames: frames)
        case .closeWebSocket:
            self.enqueueWebSocket(.close, generation: generation)
        case .cancelPollingRequests:
            let tasks = self.state.withLock { state -> [Task<Void, Never>] in
                guard state.session.generation == generation else { return [] }
                defer {
                    state.session.getTask = nil
                    state.session.postTask = nil
                }
                return [state.session.getTask, state.session.postTask].compactMap { $0 }
            }
            tasks.forEach { $0.cancel() }
        case let .scheduleHeartbeatTimeout(deadline):
            self.scheduleHeartbeat(at: deadline, generation: generation)
        case .cancelHeartbeatTimeout:
            let task = self.state.withLock { state -> Task<Void, Never>? in
                guard state.session.generation == generation else { return nil }
                defer { state.session.heartbeatTask = nil }
                return state.session.heartbeatTask
            }
            task?.cancel()
        case let .opened(handshake):
            self.didOpen(handshake, generation: generation)
        case .upgraded:
            self.didUpgrade(generation: generation)
        case let .deliverMessage(text):
            // Through the open `parseEngineMessage(_:)`, as upstream, when a subclass may
            // override it; the base class's would hand the text to the client unchanged.
            if type(of: self) == SocketEngine.self {
                let client = self.client
                client?.parseEngineMessage(text)
            } else {
                self.parseEngineMessage("4" + text)
            }
        case let .deliverBinaryMessage(bytes):
            self.parseEngineData(Data(bytes))
        case .pongReceived:
            let client = self.client
            client?.engineDidReceivePong()
        case let .closed(reason):
            self.didClose(reason, generation: generation)
        }
    }

    private func didOpen(_ handshake: EngineHandshake, generation: Int) {
        let client = self.state.withLock { state -> SocketEngineClient? in
            guard state.session.generation == generation else { return nil }
            state.sid = handshake.sid
            state.connected = true
            state.closed = false
            state.polling = state.session.machine.currentTransport == .polling
            state.websocket = !state.polling
            return state.client
        }
        guard let client else { return }
        DefaultSocketLogger.Logger.log("Handshake complete", type: SocketEngine.logTypeIO)
        client.engineDidOpen(reason: "Connect")
        self.feedWrites(generation: generation)
    }

    private func didUpgrade(generation: Int) {
        let result = self.state.withLock { state -> (SocketEngineClient?, HTTPHeaders)? in
            guard state.session.generation == generation else { return nil }
            state.polling = false
            state.websocket = true
            return (state.client, state.session.webSocket?.responseHeaders ?? HTTPHeaders())
        }
        guard let (client, responseHeaders) = result else { return }
        DefaultSocketLogger.Logger.log("Upgraded to WebSocket", type: SocketEngine.logTypeIO)
        var headers: [String: String] = [:]
        for (name, value) in responseHeaders {
            headers[name] = value
        }
        client?.engineDidWebsocketUpgrade(headers: headers)
        self.feedWrites(generation: generation)
    }

    /// The machine ended the session: tear down the attempt and tell the client once.
    private func didClose(_ reason: EngineCloseReason, generation: Int) {
        let result = self.state.withLock { state -> (EngineSession.Teardown, SocketEngineClient?, Bool)? in
            guard state.session.generation == generation else { return nil }
            let teardown = state.session.takeResources(keepingWebSocketWriter: reason == .clientClosed)
            let alreadyNotified = state.session.notifiedClose
            state.session.notifiedClose = true
            state.closed = true
            state.connected = false
            state.sid = ""
            return (teardown, state.client, alreadyNotified)
        }
        guard let (teardown, client, alreadyNotified) = result else { return }
        self.release(teardown)
        guard !alreadyNotified else { return }

        switch reason {
        case .clientClosed:
            client?.engineDidClose(reason: "Disconnect")
        case .serverClosed:
            client?.engineDidClose(reason: "Socket Disconnected")
        case .pingTimeout:
            client?.engineDidClose(reason: "Ping timeout")
        case let .transportError(message) where message == SocketEngine.webSocketClosedReason:
            client?.engineDidClose(reason: message)
        case let .transportError(message):
            DefaultSocketLogger.Logger.error("\(message)", type: SocketEngine.logTypeIO)
            client?.engineDidError(reason: message)
            client?.engineDidClose(reason: message)
        case let .protocolError(error):
            let message = "Engine.IO protocol error: \(error)"
            DefaultSocketLogger.Logger.error("\(message)", type: SocketEngine.logTypeIO)
            client?.engineDidError(reason: message)
            client?.engineDidClose(reason: message)
        }
    }

    /// Cancels an attempt's tasks and closes its WebSocket.
    func release(_ teardown: EngineSession.Teardown) {
        for task in teardown.tasks {
            task.cancel()
        }
        teardown.writerWaiter?.resume()
        if let webSocket = teardown.webSocket {
            // Bounded: the close handshake waits at most `closeTimeout` for the peer.
            Task { await webSocket.close(code: 1000, reason: "") }
        }
    }

    // MARK: Heartbeat

    /// Replaces the heartbeat timer: at `deadline`, `heartbeatTimerFired(now:)`.
    private func scheduleHeartbeat(at deadline: ContinuousClock.Instant, generation: Int) {
        let task = Task {
            try? await Task.sleep(until: deadline, clock: ContinuousClock())
            guard !Task.isCancelled else { return }
            self.drive(generation) { $0.heartbeatTimerFired(now: ContinuousClock.now) }
        }
        let previous = self.state.withLock { state -> Task<Void, Never>? in
            guard state.session.generation == generation else { return task }
            defer { state.session.heartbeatTask = task }
            return state.session.heartbeatTask
        }
        previous?.cancel()
    }

    /// Engine.IO 3: reports the client's own pings (the machine sends them every
    /// pingInterval) as `engineDidSendPing()`, upstream's `.ping` client event for socket.io 2.
    private func reportSentPings(inPollingBody body: [UInt8]) {
        guard self.state.withLock({ $0.engineProtocolVersion == .v3 }) else { return }
        // The machine encoded this body itself; a decode failure cannot happen and would only
        // mean no event.
        let packets = (try? EnginePollingPayloadV3.decode(body)) ?? []
        self.reportSentPings(packets.count(where: { if case .ping = $0 { true } else { false } }))
    }

    /// Engine.IO 3: see ``reportSentPings(inPollingBody:)``; a v3 ping frame is the text `2`.
    private func reportSentPings(inWebSocketFrames frames: [EngineWebSocketFrame]) {
        guard self.state.withLock({ $0.engineProtocolVersion == .v3 }) else { return }
        self.reportSentPings(frames.count(where: { $0 == .text("2") }))
    }

    private func reportSentPings(_ count: Int) {
        guard count > 0 else { return }
        let client = self.client
        for _ in 0..<count {
            client?.engineDidSendPing()
        }
    }

    /// Reports pings the server sent (the machine answers them) as client events.
    func reportPings(_ count: Int) {
        guard count > 0 else { return }
        let client = self.client
        for _ in 0..<count {
            client?.engineDidReceivePing()
            client?.engineDidSendPong()
        }
    }

    // MARK: Requests

    /// Headers for every request: `.extraHeaders`, then `Cookie` from `.cookies` and the
    /// server's sticky cookies (never logged).
    ///
    /// - Parameter forWebSocket: the WebSocket client has no cookie store, so it always gets
    ///   the sticky cookies; an HTTP client that keeps cookies itself does not.
    func requestHeaders(forWebSocket: Bool) -> HTTPHeaders {
        let (extraHeaders, cookies, sticky) = self.state.withLock {
            ($0.extraHeaders, $0.cookies, $0.session.stickyCookies)
        }
        var headers = HTTPHeaders()
        for (name, value) in (extraHeaders ?? [:]).sorted(by: { $0.key < $1.key }) {
            headers.add(name: name, value: value)
        }
        var pairs: [String] = (cookies ?? []).map { "\($0.name)=\($0.value)" }
        let addSticky = forWebSocket || !(self.transports?.httpKeepsCookies ?? false)
        if addSticky {
            pairs += sticky.filter { cookie in !(cookies ?? []).contains(where: { $0.name == cookie.name }) }
                .map { "\($0.name)=\($0.value)" }
        }
        if !pairs.isEmpty {
            headers.replaceOrAdd(name: "Cookie", value: pairs.joined(separator: "; "))
        }
        return headers
    }

    /// TLS settings: verification on unless `.selfSigned(true)`; `.security` adds trust roots.
    func tlsConfiguration() -> TLSConfiguration {
        let (selfSigned, security) = self.state.withLock { ($0.selfSigned, $0.security) }
        if selfSigned {
            return TLSConfiguration(verification: .none)
        }
        return TLSConfiguration(verification: security?.verifiesHostname == false ? .noHostnameVerification : .fullVerification,
                                additionalTrustRootsPEM: security?.trustedCertificatesPEM ?? [])
    }
}
