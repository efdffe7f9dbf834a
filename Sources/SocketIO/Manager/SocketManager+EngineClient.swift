import Dispatch
import EngineIOClient
public import Foundation
import RealtimeTime
import SocketIOProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SocketManager {
    // MARK: SocketEngineClient work, run on handleQueue

    func _engineDidClose(reason: String) {
        // The time is read before the critical section: a timer source's clock takes its own lock.
        let now = self.timers.now
        let actions = self.state.withLock { state in
            state.session.transportClosed(now: now, reconnection: state.options.reconnection, random: Double.random(in: 0..<1))
        }
        self.perform(actions, reason: reason)
    }

    func _engineDidError(reason: String) {
        DefaultSocketLogger.Logger.error("\(reason)", type: SocketManager.logType)

        emitAll(clientEvent: .error, data: [reason])
    }

    func _engineDidOpen(reason: String) {
        DefaultSocketLogger.Logger.log("Engine opened \(reason)", type: SocketManager.logType)

        // The engine's sid is its own state: read before the manager's critical section (the
        // engine this manager made shares its mutex, so it cannot be read inside it).
        let engineSID = self.engine?.sid
        let actions = self.state.withLock { $0.session.transportOpened() }
        self.perform(actions, reason: reason, engineSID: engineSID)
    }

    // MARK: The packet path

    /// Runs `work` on `handleQueue` as network work: until it ran, packets that arrive are
    /// processed on `handleQueue` too (behind it), so nothing done on the reading thread
    /// overtakes an earlier engine event or an earlier packet's handlers.
    ///
    /// The queued work is bounded (the session machine's backlog): at 1,024 items the engine
    /// stops reading from the network until the queue is down to half. The engine's readers
    /// ask the session itself (`readingPaused`), under the core's lock, and the ones that
    /// wait are resumed in the section that brought the backlog down.
    ///
    /// From a job on the manager's event loop (the packet path), the work goes to `handleQueue`
    /// at the end of the loop's round of jobs, in one `async` with the rest the round hands that queue
    /// (`EventLoop.async(on:_:)`); later packets of this manager wait behind it all the same.
    func onHandleQueue(_ work: @escaping @Sendable () -> Void) {
        let queue = self.state.withLock { state -> DispatchQueue in
            // `.pauseReading` needs no action: the readers ask the session.
            _ = state.session.workQueued()
            return state.options.handleQueue
        }
        self.eventLoop.async(on: queue) {
            work()
            self.core.changeReading { $0.workRan() }
        }
    }

    /// The most work items that waited on `handleQueue` at once (the backlog's peak), and
    /// whether the engine's reading is paused over them now.
    package final var handleQueueBacklog: (peak: Int, pending: Int, readingPaused: Bool) {
        self.state.withLock { ($0.session.backlogPeak, $0.session.backlogPending, $0.session.readingPaused) }
    }

    /// One Engine.IO message (text, or a binary attachment) from the engine, on the thread that
    /// read it: the core's step (``packetStep(_:in:)``) in one critical section, then its
    /// plan (``deliver(_:)``). The engine this manager made takes the step in the section that
    /// fed its own machine instead (`SocketEngine.drive`), so a WebSocket message costs one
    /// section up to here.
    func receiveFromEngine(_ read: (inout SocketSessionMachine) -> SocketSessionMachine.Action?) {
        var wake: [UnsafeContinuation<Void, Never>] = []
        let plan = self.core.state.withLock { self.packetStep(read, in: &$0, wake: &wake) }
        for reader in wake { reader.resume() }
        self.deliver(plan)
    }

    /// What the core's step decided for one message, performed after its section.
    enum PacketPlan {
        case nothing
        /// Performed on this thread; the socket's machine ran already when its half is in
        /// this core (its actions).
        case direct(SocketIOClient, SocketIOProtocol.SocketPacket, SocketIOClient.DirectStep?)
        case queued(SocketIOClient, SocketIOProtocol.SocketPacket)
    }

    /// The core's step for one message, in a critical section of the core: the session
    /// machine (`read`) decodes and reassembles it (socket.io-client-swift's rules: a text
    /// message while attachments are expected is decoded too, at most 16 packets wait); a whole
    /// packet is routed to its socket and, when it is performed on this thread, runs through the
    /// socket's `NamespaceSessionMachine` in the same section, which also decides who gets it
    /// (``SocketIOClient/directStep(_:in:)``). Only `[Any]` handlers, ack callbacks and client
    /// events wait for `handleQueue`.
    ///
    /// - Parameter wake: the engine's readers to resume after the section (none today: a
    ///   received packet only settles acks, which never lets reading resume).
    func packetStep(
        _ read: (inout SocketSessionMachine) -> SocketSessionMachine.Action?, in core: inout SocketConnectionCore.State,
        wake: inout [UnsafeContinuation<Void, Never>]
    ) -> PacketPlan {
        switch read(&core.manager!.session) {
        case .deliver(let packet, let direct)?:
            guard let socket = core.manager!.nsps[packet.namespace] else { return .nothing }
            guard direct else { return .queued(socket, packet) }
            // One critical section from the message to the socket's actions: the socket's
            // half of the state is in this core (a socket this manager made always is; the
            // app may put another manager's into `nsps`). A subclass's acks are resolved
            // by its open `handleAck`, on `handleQueue`.
            guard socket.core === self.core else { return .direct(socket, packet, nil) }
            return .direct(socket, packet, core.withSocket(socket.state.slot, wake: &wake) { socket.directStep(packet, in: &$0) })
        case .rejected(.unexpectedAttachment)?:
            DefaultSocketLogger.Logger.error("Got data when not remaking packet", type: "SocketParser")
        case .rejected(let error)?:
            DefaultSocketLogger.Logger.error("\(error): invalid packet", type: "SocketParser")
        case .textIgnored(let bytes)?:
            // socket.io-msgpack-parser sends every packet as binary; both references refuse text.
            DefaultSocketLogger.Logger.error("Text message of \(bytes) bytes with the msgpack parser: dropped", type: "SocketParser")
        default:
            break
        }
        return .nothing
    }

    /// Performs what ``packetStep(_:in:)`` decided, with no lock held.
    func deliver(_ plan: consuming PacketPlan) {
        switch consume plan {
        case .nothing:
            return
        case .direct(let socket, let packet, let step):
            if let rest = socket.receive(networkPacket: packet, direct: true, step: step) {
                self.onHandleQueue(rest)
            }
        case .queued(let socket, let packet):
            self.onHandleQueue {
                socket.receive(networkPacket: packet, direct: false)?()
            }
        }
    }

    // MARK: SocketParsable

    /// Parses a socket.io packet from an engine.io message; `nil` (and an error log) when malformed.
    public func parseSocketMessage(_ message: String) -> SocketPacket? {
        do {
            let packet = try SocketPacket.decode(message, version: self.state.withLock { $0.options.version })
            DefaultSocketLogger.Logger.log(
                "Decoded packet type \(packet.type.rawValue) for \(packet.nsp)",
                type: "SocketParser")
            return packet
        } catch {
            DefaultSocketLogger.Logger.error(
                "\(error): invalid packet of \(message.utf8.count) bytes",
                type: "SocketParser")
            return nil
        }
    }

    /// Attaches binary data to the newest waiting packet (the reader's); returns the packet
    /// once it is complete.
    public func parseBinaryData(_ data: Data) -> SocketPacket? {
        let (packet, version) = self.state.withLock { state -> (SocketIOProtocol.SocketPacket?, SocketIOVersion) in
            do {
                return (try state.session.attach(Array(data)), state.options.version)
            } catch {
                DefaultSocketLogger.Logger.error("Got data when not remaking packet", type: "SocketParser")
                return (nil, state.options.version)
            }
        }
        return packet.flatMap { try? SocketPacket.upstream($0, version: version) }
    }

    /// The reader's waiting packets in upstream's shape (placeholders in place, the
    /// attachments they have in `binary`).
    func upstreamWaitingPackets() -> [SocketPacket] {
        let (waiting, version) = self.state.withLock { ($0.session.waitingPackets, $0.options.version) }
        return waiting.compactMap { try? SocketPacket.upstream($0.packet, version: version, attachments: $0.attachments) }
    }

    /// Replaces the reader's waiting packets (upstream's settable `waitingPackets`).
    func replaceWaitingPackets(with packets: [SocketPacket]) {
        let waiting = packets.map { packet in
            var announced = SocketIOClient.protocolPacket(of: packet, full: true)
            announced.attachmentCount = packet.placeholders
            return (packet: announced, attachments: packet.binary.map { Array($0) })
        }
        self.state.withLock { $0.session.replaceWaitingPackets(with: waiting) }
    }

    // MARK: Reconnection

    /// Performs the session machine's reconnection actions, in order, with no lock held.
    func perform(_ actions: [SocketSessionMachine.Action], reason: String, engineSID: String? = nil) {
        for action in actions {
            switch action {
            case .disconnect:
                self.didDisconnect(reason: reason)
            case .beginReconnecting:
                DefaultSocketLogger.Logger.log("Starting reconnect", type: SocketManager.logType)
                // Connected sockets go back to connecting and report `reconnect` (their namespace
                // machines rejoin with the same auth when the engine reopens).
                self.forAll { socket in
                    socket.transportDidClose(reason: reason, willReconnect: true)
                }
            case .attempt(let eventValue):
                DefaultSocketLogger.Logger.log("Trying to reconnect", type: SocketManager.logType)
                self.emitAll(clientEvent: .reconnectAttempt, data: [eventValue])
                self.connect()
            case .armRetryTimer(let deadline, let timer):
                // The manager's timer source; the try itself runs on `handleQueue`, as upstream's.
                _ = self.timers.schedule(at: deadline) { [weak self] in
                    guard let self else { return }
                    self.handleQueue.async { self.reconnectTimerFired(timer, reason: reason) }
                }
            case .giveUp:
                let engine = self.engine
                engine?.disconnect(reason: "Reconnect Failed")
                self.didDisconnect(reason: "Reconnect Failed")
            case .rejoin:
                // Join (or, after a reconnect, rejoin) every namespace that is waiting, with its
                // auth payload: each socket's namespace machine knows whether it waits and with what.
                let sockets = self.state.withLock { $0.nsps }
                for (_, socket) in sockets.sorted(by: { $0.key < $1.key }) {
                    socket.transportDidOpen(engineSID: engineSID)
                }
            case .deliver, .rejected, .textIgnored, .pauseReading, .resumeReading:
                // The packet path's actions come from the message inputs, never from these.
                assertionFailure("\(action) from a reconnection input")
            }
        }
    }

    /// A reconnect try's timer fired: the machine decides whether another try follows.
    private func reconnectTimerFired(_ timer: Int, reason: String) {
        let now = self.timers.now
        let actions = self.state.withLock { state in
            state.session.retryTimerFired(
                timer, now: now, reconnection: state.options.reconnection, random: Double.random(in: 0..<1))
        }
        self.perform(actions, reason: reason)
    }
}

extension Dictionary where Key == String, Value == Any {
    /// Converts the `[String: Any]` configuration of the Objective-C style initializer.
    func toSocketConfiguration() -> SocketIOClientConfiguration {
        var options = [] as SocketIOClientConfiguration

        for (rawKey, value) in self {
            if let opt = Dictionary.keyValueToSocketIOClientOption(key: rawKey, value: value) {
                options.insert(opt)
            }
        }

        return options
    }

    private static func keyValueToSocketIOClientOption(key: String, value: Any) -> SocketIOClientOption? {
        switch (key, value) {
        case ("connectParams", let params as [String: Any]):
            return .connectParams(params)
        case ("cookies", let cookies as [HTTPCookie]):
            return .cookies(cookies)
        case ("extraHeaders", let headers as [String: String]):
            return .extraHeaders(headers)
        case ("forceNew", let force as Bool):
            return .forceNew(force)
        case ("forcePolling", let force as Bool):
            return .forcePolling(force)
        case ("forceWebsockets", let force as Bool):
            return .forceWebsockets(force)
        case ("handleQueue", let queue as DispatchQueue):
            return .handleQueue(queue)
        case ("log", let log as Bool):
            return .log(log)
        case ("logger", let logger as SocketLogger):
            return .logger(logger)
        case ("path", let path as String):
            return .path(path)
        case ("reconnects", let reconnects as Bool):
            return .reconnects(reconnects)
        case ("reconnectAttempts", let attempts as Int):
            return .reconnectAttempts(attempts)
        case ("reconnectWait", let wait as Int):
            return .reconnectWait(wait)
        case ("reconnectWaitMax", let wait as Int):
            return .reconnectWaitMax(wait)
        case ("randomizationFactor", let factor as Double):
            return .randomizationFactor(factor)
        case ("secure", let secure as Bool):
            return .secure(secure)
        case ("security", let security as CertificatePinning):
            return .security(security)
        case ("selfSigned", let selfSigned as Bool):
            return .selfSigned(selfSigned)
        case ("sessionDelegate", let delegate as URLSessionDelegate):
            return .sessionDelegate(delegate)
        case ("compress", let compress as Bool):
            return compress ? .compress : nil
        case ("enableSOCKSProxy", let enable as Bool):
            return .enableSOCKSProxy(enable)
        case ("useCustomEngine", let enable as Bool):
            return .useCustomEngine(enable)
        case ("version", let version as Int):
            return SocketIOVersion(rawValue: version).map { .version($0) }
        case _:
            return nil
        }
    }
}
