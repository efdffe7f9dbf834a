// The machine's internal steps: packet handling, the write path, the upgrade and closing.
// Inputs live in EngineClientStateMachine.swift, the state in EngineClientStateMachine+State.swift;
// nothing here is visible outside the module.
import RealtimeTime

extension EngineClientStateMachine {
    // MARK: Packets

    /// A packet of a polling body: a message goes on as the record's text.
    mutating func handle(_ packet: EngineInboundPacket, now: MonotonicInstant, into actions: inout [EngineClientAction]) {
        switch packet {
        case .message(let text):
            self.packetArrived(now: now)
            actions.append(.deliverMessage(text))
        case .packet(let packet):
            self.handle(packet, now: now, into: &actions)
        }
    }

    mutating func handle(_ packet: EnginePacket, now: MonotonicInstant, into actions: inout [EngineClientAction]) {
        self.packetArrived(now: now)
        switch packet {
        case .open(let text):
            guard case .opening(let opening) = self.state else { return }  // a second open is ignored
            let handshake: EngineHandshake
            do {
                handshake = try EngineHandshake(jsonText: text)
            } catch {
                actions += self.teardown(.protocolError(error))
                return
            }
            var session = Session(
                handshake: handshake,
                link: opening == .webSocket ? .webSocket : .polling(Polling()),
                heartbeatDeadline: now + handshake.pingInterval + handshake.pingTimeout)
            actions.append(.opened(handshake))
            Self.armHeartbeat(&session, now: now, version: self.version, into: &actions)
            if opening != .webSocket, !self.configuration.forcePolling, handshake.upgrades.contains("websocket") {
                session.link = .polling(Polling(upgrade: .connecting))
                actions.append(.openWebSocket(sid: handshake.sid))
            }
            self.state = .open(session)
            self.flushWrites(into: &actions)
        case .ping(let data):
            guard self.isOpen else { return }
            if self.version == .v4 {
                self.withSession { Self.armHeartbeat(&$0, now: now, version: .v4, into: &actions) }
            }
            self.writeControl(.pong(data), into: &actions)
            if self.configuration.reportsPings, data != "probe" { actions.append(.pingReceived) }
        case .pong:
            // v3: the answer to the client's ping; the next ping is due pingInterval from now.
            guard self.version == .v3 else { return }
            self.withSession { session in
                actions.append(.pongReceived)
                let nextPingAt = now + session.handshake.pingInterval
                session.nextPingAt = nextPingAt
                // The timer was armed for the pong deadline; the next ping may be due sooner
                // (pingTimeout > pingInterval, as python-engineio 3's 60 s / 25 s defaults).
                actions.append(.scheduleHeartbeatTimeout(min(nextPingAt, session.heartbeatDeadline)))
            }
        case .message(let text):
            actions.append(.deliverMessage(EngineMessageText(message: text)))
        case .binaryMessage(let bytes):
            actions.append(.deliverBinaryMessage(bytes))
        case .close:
            actions += self.teardown(.serverClosed)
        case .upgrade, .noop:
            break
        }
    }

    /// Every packet: in v3 any packet proves liveness (engine.io-client 3.x `onHeartbeat` on
    /// every packet). The timer already armed fires no later than before, and re-arms itself.
    mutating func packetArrived(now: MonotonicInstant) {
        guard self.version == .v3 else { return }
        self.withSession { session in
            session.heartbeatDeadline = now + session.handshake.pingInterval + session.handshake.pingTimeout
        }
    }

    /// v4: the next ping must arrive within pingInterval + pingTimeout. v3 (at open): the first
    /// client ping is due after pingInterval.
    static func armHeartbeat(
        _ session: inout Session, now: MonotonicInstant, version: EngineProtocolVersion, into actions: inout [EngineClientAction]
    ) {
        let deadline = now + session.handshake.pingInterval + session.handshake.pingTimeout
        session.heartbeatDeadline = deadline
        if version == .v3 {
            let nextPingAt = now + session.handshake.pingInterval
            session.nextPingAt = nextPingAt
            actions.append(.scheduleHeartbeatTimeout(nextPingAt))
        } else {
            actions.append(.scheduleHeartbeatTimeout(deadline))
        }
    }

    // MARK: Writes

    /// Writes a control packet (pong, v3 ping): at once over WebSocket, else through the
    /// buffer, which always takes it (not bounded like application writes). A pong is not
    /// buffered while one still waits there, so a flood of pings in one polling response
    /// adds one pong, not one each (the WebSocket send queue does the same).
    mutating func writeControl(_ packet: EnginePacket, into actions: inout [EngineClientAction]) {
        if self.transport == .webSocket, self.isOpen {
            actions.append(.sendWebSocketFrames([packet.webSocketFrame(version: self.version)]))
            return
        }
        if case .pong = packet, self.writeBuffer.holdsPong { return }
        self.buffer([packet], writeID: nil)
        self.flushWrites(into: &actions)
    }

    /// Appends a write to ``writeBuffer``; its last packet records `writeID`.
    mutating func buffer(_ packets: [EnginePacket], writeID: Int?) {
        self.writeBuffer.append(packets, writeID: writeID)
    }

    /// More than half of the write buffer's byte or packet bound is taken (writes waiting for
    /// the handshake, behind the `POST` in flight or in the upgrade window). A writer that can
    /// wait waits for room below that instead of running into the bound: backpressure with
    /// headroom, so one writer that does not wait still finds space.
    package var isCrowded: Bool {
        self.writeBuffer.encodedLength > self.configuration.maximumBufferedBytes / 2
            || self.writeBuffer.count > self.configuration.maximumBufferedPackets / 2
    }

    /// Throws unless the write buffer has room for `packets` (see ``write(_:writeID:)``).
    func checkRoom(for packets: [EnginePacket]) throws(EngineBufferOverflow) {
        var bytes = 0
        for packet in packets {
            bytes += EnginePollingPayload.encodedLength(of: packet)
        }
        let bufferedBytes = self.writeBuffer.encodedLength
        let bufferedPackets = self.writeBuffer.count
        if bufferedBytes + bytes > self.configuration.maximumBufferedBytes
            || bufferedPackets + packets.count > self.configuration.maximumBufferedPackets
        {
            throw EngineBufferOverflow(
                buffer: .engineWriteBuffer, bufferedBytes: bufferedBytes, bufferedPackets: bufferedPackets,
                writeBytes: bytes, writePackets: packets.count,
                maximumBytes: self.configuration.maximumBufferedBytes, maximumPackets: self.configuration.maximumBufferedPackets)
        }
    }

    /// Sends buffered writes if the transport allows it now.
    mutating func flushWrites(into actions: inout [EngineClientAction]) {
        guard !self.writeBuffer.isEmpty, case .open(let session) = self.state else { return }
        switch session.link {
        case .webSocket:
            let (packets, writeID) = self.writeBuffer.takeAll()
            actions.append(.sendWebSocketFrames(packets.map { $0.webSocketFrame(version: self.version) }))
            if let writeID { actions.append(.carriesWrites(through: writeID)) }
        case .polling(let polling):
            guard !polling.postInFlight, polling.upgrade != .pausing else { return }
            actions += self.makePOST()
        }
    }

    /// Takes one batch from the write buffer into a `POST`: at most `maxPayload` bytes (v4)
    /// and ``Configuration/maximumPacketsPerPOST`` packets; followed by
    /// ``EngineClientAction/carriesWrites(through:)`` when it ends a numbered write. Only in
    /// an open polling session or while closing, with no `POST` in flight.
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
        switch self.state {
        case .open:
            self.withPolling { $0.postInFlight = true }
        case .closing(var closing):
            closing.postInFlight = true
            self.state = .closing(closing)
        case .idle, .opening, .closed:
            assertionFailure("a POST outside a polling session")
        }
        var actions: [EngineClientAction] = [.sendPollingPOST(sid: self.sid ?? "", body: body)]
        if let writeID { actions.append(.carriesWrites(through: writeID)) }
        return actions
    }

    // MARK: Upgrade

    /// Completes the upgrade once the paused polling transport has nothing in flight:
    /// sends `5` and the writes buffered during the window, in order, over the WebSocket.
    mutating func finishUpgradeIfDrained(into actions: inout [EngineClientAction]) {
        guard let polling = self.polling, polling.upgrade == .pausing, !polling.getInFlight, !polling.postInFlight else { return }
        var frames: [EngineWebSocketFrame] = [EnginePacket.upgrade.webSocketFrame(version: self.version)]
        let (packets, writeID) = self.writeBuffer.takeAll()
        frames += packets.map { $0.webSocketFrame(version: self.version) }
        self.withSession { $0.link = .webSocket }
        actions.append(.sendWebSocketFrames(frames))
        if let writeID { actions.append(.carriesWrites(through: writeID)) }
        actions.append(.upgraded)
    }

    /// The probe failed: drop the WebSocket and keep (or resume) polling.
    mutating func abandonUpgrade() -> [EngineClientAction] {
        guard let polling = self.polling, polling.upgrade != .none else { return [] }
        var actions: [EngineClientAction] = [.closeWebSocket]
        let resumesGET = polling.upgrade == .pausing && !polling.getInFlight
        self.withPolling { polling in
            polling.upgrade = .none
            if resumesGET { polling.getInFlight = true }
        }
        if polling.upgrade == .pausing {
            if resumesGET {
                actions.append(.sendPollingGET(sid: self.sid))
            }
            self.flushWrites(into: &actions)
        }
        return actions
    }

    // MARK: Closing

    mutating func finishClosingIfDone() -> [EngineClientAction] {
        guard case .closing(let closing) = self.state, !closing.postInFlight else { return [] }
        return self.teardown(.clientClosed)
    }

    /// Ends the session: cancels what is in flight and reports the reason.
    ///
    /// - Parameter webSocketGone: the WebSocket already failed, so it is not closed again.
    mutating func teardown(_ reason: EngineCloseReason, webSocketGone: Bool = false) -> [EngineClientAction] {
        let heartbeatArmed: Bool
        switch self.state {
        case .closed:
            return []
        case .open, .closing:
            heartbeatArmed = true
        case .idle, .opening:
            heartbeatArmed = false
        }
        var actions: [EngineClientAction] = []
        if self.getInFlight || self.postInFlight {
            actions.append(.cancelPollingRequests)
        }
        if self.webSocketActive, !webSocketGone {
            actions.append(.closeWebSocket)
        }
        if heartbeatArmed {
            actions.append(.cancelHeartbeatTimeout)
        }
        actions.append(.closed(reason))
        self.state = .closed(Closed(reason: reason, transport: self.transport, handshake: self.handshake))
        self.writeBuffer.removeAll()
        return actions
    }
}
