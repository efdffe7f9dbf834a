import Dispatch
public import Foundation
import SocketIOProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif


extension SocketManager {
    // MARK: SocketEngineClient work, run on handleQueue

    func _engineDidClose(reason: String) {
        enum Next { case disconnect, reconnect, nothing }
        let next = self.state.withLock { state -> Next in
            state.waitingPackets.removeAll()

            if state.status != .disconnected {
                state.status = .notConnected
            }

            if state.status == .disconnected || !state.reconnects {
                return .disconnect
            } else if !state.reconnecting {
                state.reconnecting = true
                return .reconnect
            }
            return .nothing
        }

        switch next {
        case .disconnect: didDisconnect(reason: reason)
        case .reconnect: tryReconnect(reason: reason)
        case .nothing: break
        }
    }

    func _engineDidError(reason: String) {
        DefaultSocketLogger.Logger.error("\(reason)", type: SocketManager.logType)

        emitAll(clientEvent: .error, data: [reason])
    }

    func _engineDidOpen(reason: String) {
        DefaultSocketLogger.Logger.log("Engine opened \(reason)", type: SocketManager.logType)

        let (engineSID, sockets) = self.state.withLock { state -> (String?, [String: SocketIOClient]) in
            state.status = .connected
            return (state.engine?.sid, state.nsps)
        }

        // Join (or, after a reconnect, rejoin) every namespace that is waiting, with its auth
        // payload: each socket's namespace machine knows whether it waits and with what.
        for (_, socket) in sockets.sorted(by: { $0.key < $1.key }) {
            socket.transportDidOpen(engineSID: engineSID)
        }
    }

    func _parseEngineMessage(_ msg: String) {
        guard let packet = parseSocketMessage(msg) else { return }
        guard !packet.type.isBinary || packet.placeholders == 0 else {
            self.state.withLock { state in
                // Attachments follow their packet directly; a server that announces packet
                // after packet without sending them cannot make this buffer grow past a bound.
                if state.waitingPackets.count >= SocketManager.maximumWaitingPackets {
                    state.waitingPackets.removeFirst()
                }
                state.waitingPackets.append(packet)
            }

            return
        }

        self.nsps[packet.nsp]?.handlePacket(packet)
    }

    func _parseEngineBinaryData(_ data: Data) {
        guard let packet = parseBinaryData(data) else { return }

        self.nsps[packet.nsp]?.handlePacket(packet)
    }

    // MARK: SocketParsable

    /// Parses a socket.io packet from an engine.io message; `nil` (and an error log) when malformed.
    public func parseSocketMessage(_ message: String) -> SocketPacket? {
        do {
            let packet = try SocketPacket.decode(message, version: self.state.withLock { $0.version })
            DefaultSocketLogger.Logger.log("Decoded packet type \(packet.type.rawValue) for \(packet.nsp)",
                                           type: "SocketParser")
            return packet
        } catch {
            DefaultSocketLogger.Logger.error("\(error): invalid packet of \(message.utf8.count) bytes",
                                             type: "SocketParser")
            return nil
        }
    }

    /// Attaches binary data to the waiting packet; returns the packet once it is complete.
    public func parseBinaryData(_ data: Data) -> SocketPacket? {
        return self.state.withLock { state -> SocketPacket? in
            guard !state.waitingPackets.isEmpty else {
                DefaultSocketLogger.Logger.error("Got data when not remaking packet", type: "SocketParser")
                return nil
            }

            // Should execute event?
            guard state.waitingPackets[state.waitingPackets.count - 1].addData(data) else { return nil }

            return state.waitingPackets.removeLast()
        }
    }

    // MARK: Reconnection

    func tryReconnect(reason: String) {
        guard self.state.withLock({ $0.reconnecting }) else { return }

        DefaultSocketLogger.Logger.log("Starting reconnect", type: SocketManager.logType)

        // Connected sockets go back to connecting and report `reconnect` (their namespace
        // machines rejoin with the same auth when the engine reopens).
        forAll { socket in
            socket.transportDidClose(reason: reason, willReconnect: true)
        }

        _tryReconnect()
    }

    private func _tryReconnect() {
        enum Step { case stop, failed, attempt(remaining: Int, delay: Double) }
        let step = self.state.withLock { state -> Step in
            guard state.reconnects && state.reconnecting && state.status != .disconnected else { return .stop }

            if state.reconnectAttempts != -1 && state.currentReconnectAttempt + 1 > state.reconnectAttempts {
                // Give up: the manager is `disconnected` and a later `connect` starts a fresh count.
                state.reconnecting = false
                state.currentReconnectAttempt = 0
                state.status = .disconnected
                return .failed
            }

            let remaining = state.reconnectAttempts - state.currentReconnectAttempt
            state.currentReconnectAttempt += 1
            let delay = SocketManager.reconnectInterval(attempts: state.currentReconnectAttempt,
                                                        wait: state.reconnectWait,
                                                        waitMax: state.reconnectWaitMax,
                                                        randomizationFactor: state.randomizationFactor)
            return .attempt(remaining: remaining, delay: delay)
        }

        switch step {
        case .stop:
            return
        case .failed:
            let engine = self.engine
            engine?.disconnect(reason: "Reconnect Failed")
            didDisconnect(reason: "Reconnect Failed")
        case let .attempt(remaining, delay):
            DefaultSocketLogger.Logger.log("Trying to reconnect", type: SocketManager.logType)
            emitAll(clientEvent: .reconnectAttempt, data: [remaining])

            connect()

            handleQueue.asyncAfter(deadline: DispatchTime.now() + delay) { [weak self] in
                self?._tryReconnect()
            }
        }
    }

    /// Upstream's backoff (`SocketIOProtocol.ReconnectBackoff`): `wait * 1.5^attempts` plus
    /// up to `randomizationFactor` of it, clamped to `wait...waitMax`.
    static func reconnectInterval(attempts: Int, wait: Int, waitMax: Int, randomizationFactor: Double) -> Double {
        let backoff = ReconnectBackoff(reconnectWait: Double(wait), reconnectWaitMax: Double(waitMax),
                                       randomizationFactor: randomizationFactor)
        let seconds = backoff.interval(attempts: attempts, random: Double.random(in: 0..<1))
        return seconds.isFinite ? max(0, seconds) : Double(waitMax)
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
        case let ("connectParams", params as [String: Any]):
            return .connectParams(params)
        case let ("cookies", cookies as [HTTPCookie]):
            return .cookies(cookies)
        case let ("extraHeaders", headers as [String: String]):
            return .extraHeaders(headers)
        case let ("forceNew", force as Bool):
            return .forceNew(force)
        case let ("forcePolling", force as Bool):
            return .forcePolling(force)
        case let ("forceWebsockets", force as Bool):
            return .forceWebsockets(force)
        case let ("handleQueue", queue as DispatchQueue):
            return .handleQueue(queue)
        case let ("log", log as Bool):
            return .log(log)
        case let ("logger", logger as SocketLogger):
            return .logger(logger)
        case let ("path", path as String):
            return .path(path)
        case let ("reconnects", reconnects as Bool):
            return .reconnects(reconnects)
        case let ("reconnectAttempts", attempts as Int):
            return .reconnectAttempts(attempts)
        case let ("reconnectWait", wait as Int):
            return .reconnectWait(wait)
        case let ("reconnectWaitMax", wait as Int):
            return .reconnectWaitMax(wait)
        case let ("randomizationFactor", factor as Double):
            return .randomizationFactor(factor)
        case let ("secure", secure as Bool):
            return .secure(secure)
        case let ("security", security as CertificatePinning):
            return .security(security)
        case let ("selfSigned", selfSigned as Bool):
            return .selfSigned(selfSigned)
        case let ("sessionDelegate", delegate as URLSessionDelegate):
            return .sessionDelegate(delegate)
        case let ("compress", compress as Bool):
            return compress ? .compress : nil
        case let ("enableSOCKSProxy", enable as Bool):
            return .enableSOCKSProxy(enable)
        case let ("useCustomEngine", enable as Bool):
            return .useCustomEngine(enable)
        case let ("version", version as Int):
            return SocketIOVersion(rawValue: version).map { .version($0) }
        case _:
            return nil
        }
    }
}
