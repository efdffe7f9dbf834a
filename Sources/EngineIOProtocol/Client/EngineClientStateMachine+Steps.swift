// The machine's internal steps: packet handling, the write path, the upgrade and closing.
// State lives in EngineClientStateMachine.swift; its stored properties are internal (not
// private) so this file can reach them; nothing here is visible outside the module.

extension EngineClientStateMachine {
    // MARK: Packets

    mutating func handle(_ packet: EnginePacket, now: ContinuousClock.Instant, into actions: inout [EngineClientAction]) {
        if self.version == .v3, self.phase == .open, let handshake = self.handshake {
            // v3: any packet proves liveness (engine.io-client 3.x `onHeartbeat` on every packet).
            // The timer already armed fires no later than before, and re-arms itself.
            self.heartbeatDeadline = now + handshake.pingInterval + handshake.pingTimeout
        }
        switch packet {
        case .open(let text):
            guard self.phase == .opening else { return }  // a second open is ignored
            let handshake: EngineHandshake
            do {
                handshake = try EngineHandshake(jsonText: text)
            } catch {
                actions += self.teardown(.protocolError(error))
                return
            }
            self.handshake = handshake
            self.phase = .open
            actions.append(.opened(handshake))
            self.armHeartbeat(now: now, into: &actions)
            if self.transport == .polling, !self.configuration.forcePolling, handshake.upgrades.contains("websocket") {
                self.upgrade = .connecting
                self.webSocketActive = true
                actions.append(.openWebSocket(sid: handshake.sid))
            }
            self.flushWrites(into: &actions)
        case .ping(let data):
            guard self.phase == .open else { return }
            if self.version == .v4 {
                self.armHeartbeat(now: now, into: &actions)
            }
            self.write(.pong(data), into: &actions)
        case .pong:
            // v3: the answer to the client's ping; the next ping is due pingInterval from now.
            if self.version == .v3, self.phase == .open, let handshake = self.handshake {
                actions.append(.pongReceived)
                let nextPingAt = now + handshake.pingInterval
                self.nextPingAt = nextPingAt
                // The timer was armed for the pong deadline; the next ping may be due sooner
                // (pingTimeout > pingInterval, as python-engineio 3's 60 s / 25 s defaults).
                actions.append(.scheduleHeartbeatTimeout(min(nextPingAt, self.heartbeatDeadline ?? nextPingAt)))
            }
        case .message(let text):
            actions.append(.deliverMessage(text))
        case .binaryMessage(let bytes):
            actions.append(.deliverBinaryMessage(bytes))
        case .close:
            actions += self.teardown(.serverClosed)
        case .upgrade, .noop:
            break
        }
    }

    /// v4: the next ping must arrive within pingInterval + pingTimeout. v3 (at open): the first
    /// client ping is due after pingInterval.
    mutating func armHeartbeat(now: ContinuousClock.Instant, into actions: inout [EngineClientAction]) {
        guard let handshake = self.handshake else { return }
        let deadline = now + handshake.pingInterval + handshake.pingTimeout
        self.heartbeatDeadline = deadline
        if self.version == .v3 {
            let nextPingAt = now + handshake.pingInterval
            self.nextPingAt = nextPingAt
            actions.append(.scheduleHeartbeatTimeout(nextPingAt))
        } else {
            actions.append(.scheduleHeartbeatTimeout(deadline))
        }
    }

    // MARK: Writes

    mutating func write(_ packet: EnginePacket, into actions: inout [EngineClientAction]) {
        if self.transport == .webSocket {
            actions.append(.sendWebSocketFrames([packet.webSocketFrame(version: self.version)]))
            return
        }
        self.writeBuffer.append(packet)
        self.flushWrites(into: &actions)
    }

    /// Sends buffered writes if the transport allows it now.
    mutating func flushWrites(into actions: inout [EngineClientAction]) {
        guard !self.writeBuffer.isEmpty, self.phase == .open else { return }
        if self.transport == .webSocket {
            actions.append(.sendWebSocketFrames(self.writeBuffer.map { $0.webSocketFrame(version: self.version) }))
            self.writeBuffer.removeAll()
            return
        }
        guard !self.postInFlight, self.upgrade != .pausing else { return }
        actions.append(self.makePOST())
    }

    /// Takes one `maxPayload`-sized batch from the write buffer into a `POST` (v3: everything).
    mutating func makePOST() -> EngineClientAction {
        let count: Int
        let body: [UInt8]
        switch self.version {
        case .v4:
            count = EnginePollingPayload.batchCount(self.writeBuffer, maxPayload: self.handshake?.maxPayload)
            body = EnginePollingPayload.encode(self.writeBuffer[..<count])
        case .v3:
            count = self.writeBuffer.count
            body = EnginePollingPayloadV3.encode(self.writeBuffer)
        }
        self.writeBuffer.removeFirst(count)
        self.postInFlight = true
        return .sendPollingPOST(sid: self.sid ?? "", body: body)
    }

    // MARK: Upgrade

    /// Completes the upgrade once the paused polling transport has nothing in flight:
    /// sends `5` and the writes buffered during the window, in order, over the WebSocket.
    mutating func finishUpgradeIfDrained(into actions: inout [EngineClientAction]) {
        guard self.upgrade == .pausing, !self.getInFlight, !self.postInFlight else { return }
        var frames: [EngineWebSocketFrame] = [EnginePacket.upgrade.webSocketFrame(version: self.version)]
        frames += self.writeBuffer.map { $0.webSocketFrame(version: self.version) }
        self.writeBuffer.removeAll()
        self.transport = .webSocket
        self.upgrade = .none
        actions.append(.sendWebSocketFrames(frames))
        actions.append(.upgraded)
    }

    /// The probe failed: drop the WebSocket and keep (or resume) polling.
    mutating func abandonUpgrade() -> [EngineClientAction] {
        guard self.upgrade != .none else { return [] }
        let wasPausing = self.upgrade == .pausing
        self.upgrade = .none
        self.webSocketActive = false
        var actions: [EngineClientAction] = [.closeWebSocket]
        if wasPausing, self.phase == .open {
            if !self.getInFlight {
                self.getInFlight = true
                actions.append(.sendPollingGET(sid: self.sid))
            }
            self.flushWrites(into: &actions)
        }
        return actions
    }

    // MARK: Closing

    mutating func finishClosingIfDone() -> [EngineClientAction] {
        guard self.phase == .closing, !self.postInFlight else { return [] }
        return self.teardown(.clientClosed)
    }

    /// Ends the session: cancels what is in flight and reports the reason.
    mutating func teardown(_ reason: EngineCloseReason) -> [EngineClientAction] {
        if case .closed = self.phase { return [] }
        var actions: [EngineClientAction] = []
        if self.getInFlight || self.postInFlight {
            actions.append(.cancelPollingRequests)
        }
        if self.webSocketActive {
            actions.append(.closeWebSocket)
        }
        if self.heartbeatDeadline != nil {
            actions.append(.cancelHeartbeatTimeout)
        }
        actions.append(.closed(reason))
        self.phase = .closed(reason)
        self.getInFlight = false
        self.postInFlight = false
        self.webSocketActive = false
        self.upgrade = .none
        self.heartbeatDeadline = nil
        self.nextPingAt = nil
        self.writeBuffer.removeAll()
        return actions
    }
}
