// The machine's internal steps: packet handling, the write path, the upgrade and closing.
// State lives in EngineClientStateMachine.swift; its stored properties are internal (not
// private) so this file can reach them; nothing here is visible outside the module.
import RealtimeTime

extension EngineClientStateMachine {
    // MARK: Packets

    mutating func handle(_ packet: EnginePacket, now: MonotonicInstant, into actions: inout [EngineClientAction]) {
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
            if self.configuration.reportsPings, data != "probe" { actions.append(.pingReceived) }
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
    mutating func armHeartbeat(now: MonotonicInstant, into actions: inout [EngineClientAction]) {
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
        self.buffer([packet], writeID: nil)
        self.flushWrites(into: &actions)
    }

    /// Appends a write to ``writeBuffer``; its last packet records `writeID`.
    mutating func buffer(_ packets: [EnginePacket], writeID: Int?) {
        self.writeBuffer.append(packets, writeID: writeID)
    }

    /// Sends buffered writes if the transport allows it now.
    mutating func flushWrites(into actions: inout [EngineClientAction]) {
        guard !self.writeBuffer.isEmpty, self.phase == .open else { return }
        if self.transport == .webSocket {
            let (packets, writeID) = self.writeBuffer.takeAll()
            actions.append(.sendWebSocketFrames(packets.map { $0.webSocketFrame(version: self.version) }))
            if let writeID { actions.append(.carriesWrites(through: writeID)) }
            return
        }
        guard !self.postInFlight, self.upgrade != .pausing else { return }
        actions += self.makePOST()
    }

    /// Takes one batch from the write buffer into a `POST`: at most `maxPayload` bytes (v4)
    /// and ``Configuration/maximumPacketsPerPOST`` packets; followed by
    /// ``EngineClientAction/carriesWrites(through:)`` when it ends a numbered write.
    mutating func makePOST() -> [EngineClientAction] {
        // Only the packets that go out are looked at: a long burst costs O(batch) per POST.
        let count = self.writeBuffer.batchCount(
            maxPayload: self.version == .v4 ? self.handshake?.maxPayload : nil,
            maximumPackets: self.configuration.maximumPacketsPerPOST)
        let (packets, writeID) = self.writeBuffer.take(count)
        let body: [UInt8] =
            switch self.version {
            case .v4: EnginePollingPayload.encode(packets)
            case .v3: EnginePollingPayloadV3.encode(packets)
            }
        self.postInFlight = true
        var actions: [EngineClientAction] = [.sendPollingPOST(sid: self.sid ?? "", body: body)]
        if let writeID { actions.append(.carriesWrites(through: writeID)) }
        return actions
    }

    // MARK: Upgrade

    /// Completes the upgrade once the paused polling transport has nothing in flight:
    /// sends `5` and the writes buffered during the window, in order, over the WebSocket.
    mutating func finishUpgradeIfDrained(into actions: inout [EngineClientAction]) {
        guard self.upgrade == .pausing, !self.getInFlight, !self.postInFlight else { return }
        var frames: [EngineWebSocketFrame] = [EnginePacket.upgrade.webSocketFrame(version: self.version)]
        let (packets, writeID) = self.writeBuffer.takeAll()
        frames += packets.map { $0.webSocketFrame(version: self.version) }
        self.transport = .webSocket
        self.upgrade = .none
        actions.append(.sendWebSocketFrames(frames))
        if let writeID { actions.append(.carriesWrites(through: writeID)) }
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
