package import RealtimeTime

/// The client side of an Engine.IO v4 session, without I/O.
///
/// Implements engine.io-protocol v4: the handshake ("Handshake"), long-polling with at most one
/// `GET` and one `POST` in flight ("HTTP long-polling"; writes made while a `POST` is in flight
/// are buffered and sent together in the next one, split by the handshake's `maxPayload`), the
/// server-driven heartbeat ("Heartbeat": answer `2` with `3`; the session is dead when no ping
/// arrives within `pingInterval + pingTimeout`), the upgrade to WebSocket ("Upgrade": open a
/// WebSocket with the `sid`, send `2probe`, expect `3probe`, pause polling until the in-flight
/// `GET` and `POST` finish, send `5`, switch), WebSocket-only sessions, and closing.
///
/// Each input is a `mutating` function returning the actions the owner must perform, in
/// order (see ``EngineClientAction``). Time is an input: the machine never reads a clock.
///
/// Ordering guarantees during an upgrade: packets received on the old polling `GET` are
/// delivered before anything received on the WebSocket; packets written during the upgrade
/// window are kept in order and sent after `5`, behind everything already `POST`ed.
///
/// ```swift
/// var engine = EngineClientStateMachine(configuration: .init())
/// engine.start()                                        // [.sendPollingGET(sid: nil)]
/// engine.pollingGETCompleted(body: openBody, now: now)  // [.opened(…), .scheduleHeartbeatTimeout(…), .openWebSocket(sid:), .sendPollingGET(sid:)]
/// ```
///
/// - Important: A value type without locking. The owner keeps it under its one lock, and
///   performs the returned actions after releasing the lock, in order. Reports about requests
///   or sockets the machine no longer tracks (late completions after a close or cancel) are
///   ignored, so the owner need not filter them.
package struct EngineClientStateMachine: Sendable {
    /// How the session may use its transports.
    package struct Configuration: Sendable, Hashable {
        /// Never upgrade to WebSocket (socket.io-client-swift `.forcePolling(true)`).
        package var forcePolling: Bool
        /// Skip polling and open the session over WebSocket (socket.io-client-swift `.forceWebsockets(true)`).
        package var forceWebSockets: Bool
        /// The largest polling response body accepted, in bytes.
        package var maximumPollingBodyLength: Int
        /// The protocol revision (`EIO=4` by default; ``EngineProtocolVersion/v3`` for Socket.IO 2.x
        /// servers: client-driven heartbeat, length-prefixed polling payloads).
        package var protocolVersion: EngineProtocolVersion
        /// The most packets in one `POST` (`nil`: only `maxPayload` limits it). python-engineio
        /// answers a payload of more than 16 packets with 400 ("Too many packets in payload",
        /// `Payload.max_decode_packets`); see ``pythonEngineIOPacketsPerPOST``.
        package var maximumPacketsPerPOST: Int?
        /// Report heartbeat traffic as ``EngineClientAction/pingReceived`` and
        /// ``EngineClientAction/pingSent``.
        package var reportsPings: Bool

        /// The packet cap python-engineio (and so every server this library is tested with)
        /// accepts per `POST`, with one place kept free: 15.
        package static let pythonEngineIOPacketsPerPOST = 15

        /// Defaults: polling first with an upgrade to WebSocket when offered, `EIO=4`, 16 MiB
        /// bodies, no packet cap, no ping reports.
        package init(
            forcePolling: Bool = false,
            forceWebSockets: Bool = false,
            maximumPollingBodyLength: Int = PollingPayloadDecoder.defaultMaximumLength,
            protocolVersion: EngineProtocolVersion = .v4,
            maximumPacketsPerPOST: Int? = nil,
            reportsPings: Bool = false
        ) {
            self.forcePolling = forcePolling
            self.forceWebSockets = forceWebSockets
            self.maximumPollingBodyLength = maximumPollingBodyLength
            self.protocolVersion = protocolVersion
            self.maximumPacketsPerPOST = maximumPacketsPerPOST.map { max(1, $0) }
            self.reportsPings = reportsPings
        }
    }

    enum Phase: Sendable, Hashable {
        /// ``start()`` not called yet.
        case idle
        /// Waiting for the `open` packet.
        case opening
        /// Handshake done.
        case open
        /// Client close over polling: waiting for the `POST` carrying `1`.
        case closing
        /// Over.
        case closed(EngineCloseReason)
    }

    enum UpgradeState: Sendable, Hashable {
        /// No upgrade running (not offered, not allowed, failed, or done).
        case none
        /// The WebSocket is being opened.
        case connecting
        /// `2probe` sent, waiting for `3probe`.
        case probing
        /// `3probe` received; polling paused until the in-flight `GET`/`POST` finish.
        case pausing
    }

    /// The configuration given at creation.
    package let configuration: Configuration

    var phase: Phase = .idle
    var transport: EngineTransport = .polling
    var handshake: EngineHandshake?
    var getInFlight = false
    var postInFlight = false
    var upgrade: UpgradeState = .none
    /// A WebSocket exists (opening or open), either the session's or an upgrade probe's.
    var webSocketActive = false
    /// Packets to send: before the handshake, while a `POST` is in flight, or while paused.
    var writeBuffer = EngineOutboundBuffer()
    /// When the session is considered dead without news from the server.
    var heartbeatDeadline: MonotonicInstant?
    /// v3 only: when the client sends its next ping (`nil` while waiting for the pong).
    var nextPingAt: MonotonicInstant?

    var version: EngineProtocolVersion { self.configuration.protocolVersion }

    /// A machine that has not started.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: Observers

    /// The session id once the handshake is done.
    package var sid: String? { self.handshake?.sid }

    /// The handshake once the session is open.
    package var currentHandshake: EngineHandshake? { self.handshake }

    /// The transport carrying the session (after ``start()``).
    package var currentTransport: EngineTransport { self.transport }

    /// `true` between the `open` packet and the end of the session.
    package var isOpen: Bool { self.phase == .open }

    /// `true` once ``start()`` (or ``close()``) was called.
    package var hasStarted: Bool { self.phase != .idle }

    /// The reason the session ended, once closed.
    package var closeReason: EngineCloseReason? {
        if case .closed(let reason) = self.phase { return reason }
        return nil
    }

    /// `true` while a polling `GET` is in flight.
    package var isPollingGETInFlight: Bool { self.getInFlight }

    /// `true` while a polling `POST` is in flight.
    package var isPollingPOSTInFlight: Bool { self.postInFlight }

    /// `true` while a WebSocket upgrade is in progress (connecting, probing, or pausing).
    package var isUpgrading: Bool { self.upgrade != .none }

    /// `true` after `3probe`, while polling drains before the client sends `5`.
    package var isPausedForUpgrade: Bool { self.upgrade == .pausing }

    /// How long the owner lets a polling `GET` wait for the server: the server holds a `GET` up
    /// to `pingInterval` (engine.io-protocol v4, "HTTP long-polling"), so `pingInterval +
    /// pingTimeout` and 5 s of grace once the handshake is known; 20 s for the handshake itself.
    package var pollingGETTimeout: TimeAmount {
        guard let handshake = self.handshake else { return .seconds(20) }
        return handshake.pingInterval + handshake.pingTimeout + .seconds(5)
    }

    /// The first of `packets` the server would refuse for its size, as (encoded length,
    /// limit): longer than the handshake's `maxPayload` as the current transport encodes it
    /// (a polling record, base64 for binary; a WebSocket frame). `nil` when all fit, before
    /// the handshake, and when the server sent no `maxPayload` (Engine.IO 3).
    ///
    /// ``send(_:)-([EnginePacket])`` sends such a packet anyway (a POST of its own); an owner
    /// that would rather refuse it asks here first.
    package func oversizedPacket(in packets: [EnginePacket]) -> (length: Int, limit: Int)? {
        guard let limit = self.handshake?.maxPayload else { return nil }
        for packet in packets {
            let length: Int
            switch packet {
            case .binaryMessage(let bytes) where self.transport == .webSocket: length = bytes.count
            default: length = EnginePollingPayload.encodedLength(of: packet)
            }
            if length > limit { return (length, limit) }
        }
        return nil
    }

    // MARK: Inputs: lifecycle

    /// Starts the session: a handshake `GET` over polling, or a WebSocket when
    /// ``Configuration/forceWebSockets`` is set.
    package mutating func start() -> [EngineClientAction] {
        guard self.phase == .idle else { return [] }
        self.phase = .opening
        if self.configuration.forceWebSockets {
            self.transport = .webSocket
            self.webSocketActive = true
            return [.openWebSocket(sid: nil)]
        }
        self.transport = .polling
        self.getInFlight = true
        return [.sendPollingGET(sid: nil)]
    }

    /// Closes the session from the client side.
    ///
    /// Over WebSocket, sends `1` and closes the socket. Over polling, sends `1` in a `POST` (after
    /// anything still buffered) and reports ``EngineClientAction/closed(_:)`` once that `POST`
    /// finished. Before the handshake, closes at once.
    package mutating func close() -> [EngineClientAction] {
        switch self.phase {
        case .idle:
            self.phase = .closed(.clientClosed)
            return [.closed(.clientClosed)]
        case .opening:
            return self.teardown(.clientClosed)
        case .open:
            if self.transport == .webSocket {
                var actions: [EngineClientAction] = [.sendWebSocketFrames([EnginePacket.close.webSocketFrame(version: self.version)])]
                actions += self.teardown(.clientClosed)
                return actions
            }
            var actions: [EngineClientAction] = []
            if self.upgrade != .none {
                actions.append(.closeWebSocket)
                self.upgrade = .none
                self.webSocketActive = false
            }
            self.phase = .closing
            self.buffer([.close], writeID: nil)
            if !self.postInFlight {
                actions += self.makePOST()
            }
            return actions
        case .closing, .closed:
            return []
        }
    }

    // MARK: Inputs: writes

    /// Sends packets (normally messages), in order.
    ///
    /// Before the handshake they are buffered; over polling they go in the next `POST` (at most
    /// one in flight, at most `maxPayload` bytes each); over WebSocket one frame each. After
    /// the session closed (or while closing) they are dropped.
    package mutating func send(_ packets: [EnginePacket]) -> [EngineClientAction] {
        self.send(packets, writeID: nil)
    }

    /// Sends packets as one write numbered `writeID` (the owner's, increasing): the send that
    /// carries its last packet is followed by ``EngineClientAction/carriesWrites(through:)``,
    /// whichever path it takes (buffered before the handshake, behind a `POST` in flight or the
    /// packet cap, in the upgrade window, or at once over WebSocket). A write the machine
    /// drops (closing or closed) is never carried.
    package mutating func send(_ packets: [EnginePacket], writeID: Int?) -> [EngineClientAction] {
        guard !packets.isEmpty else { return [] }
        switch self.phase {
        case .idle, .closing, .closed:
            return []
        case .opening:
            self.buffer(packets, writeID: writeID)
            return []
        case .open:
            if self.transport == .webSocket {
                var actions: [EngineClientAction] = [.sendWebSocketFrames(packets.map { $0.webSocketFrame(version: self.version) })]
                if let writeID { actions.append(.carriesWrites(through: writeID)) }
                return actions
            }
            self.buffer(packets, writeID: writeID)
            var actions: [EngineClientAction] = []
            self.flushWrites(into: &actions)
            return actions
        }
    }

    /// Sends one packet; see ``send(_:)-([EnginePacket])``.
    package mutating func send(_ packet: EnginePacket) -> [EngineClientAction] {
        self.send([packet])
    }

    // MARK: Inputs: polling

    /// The polling `GET` finished with HTTP 200 and this body.
    package mutating func pollingGETCompleted(body: [UInt8], now: MonotonicInstant) -> [EngineClientAction] {
        guard self.transport == .polling, self.getInFlight else { return [] }
        self.getInFlight = false
        switch self.phase {
        case .idle, .closed:
            return []
        case .closing:
            return self.finishClosingIfDone()
        case .opening, .open:
            break
        }
        let packets: [EnginePacket]
        do {
            switch self.version {
            case .v4:
                packets = try EnginePollingPayload.decode(body, maximumLength: self.configuration.maximumPollingBodyLength)
            case .v3:
                packets = try EnginePollingPayloadV3.decode(body, maximumLength: self.configuration.maximumPollingBodyLength)
            }
        } catch {
            return self.teardown(.protocolError(error))
        }
        var actions: [EngineClientAction] = []
        if self.phase == .opening {
            guard case .open? = packets.first else {
                return self.teardown(.protocolError(.invalidHandshake("first packet is not open")))
            }
        }
        for packet in packets {
            self.handle(packet, now: now, into: &actions)
            guard self.phase == .open else { return actions }
        }
        guard self.transport == .polling else { return actions }
        if self.upgrade == .pausing {
            self.finishUpgradeIfDrained(into: &actions)
        } else {
            self.getInFlight = true
            actions.append(.sendPollingGET(sid: self.sid))
        }
        return actions
    }

    /// The polling `GET` failed (network error or non-200 status).
    package mutating func pollingGETFailed(reason: String) -> [EngineClientAction] {
        guard self.transport == .polling, self.getInFlight else { return [] }
        self.getInFlight = false
        switch self.phase {
        case .opening, .open:
            return self.teardown(.transportError(reason))
        case .closing:
            return self.finishClosingIfDone()
        case .idle, .closed:
            return []
        }
    }

    /// The polling `POST` finished with HTTP 200.
    package mutating func pollingPOSTCompleted(now: MonotonicInstant) -> [EngineClientAction] {
        guard self.postInFlight else { return [] }
        self.postInFlight = false
        switch self.phase {
        case .closing:
            if !self.writeBuffer.isEmpty {
                return self.makePOST()
            }
            return self.finishClosingIfDone()
        case .open:
            var actions: [EngineClientAction] = []
            if self.upgrade == .pausing {
                self.finishUpgradeIfDrained(into: &actions)
            } else {
                self.flushWrites(into: &actions)
            }
            return actions
        case .idle, .opening, .closed:
            return []
        }
    }

    /// The polling `POST` failed (network error or non-200 status).
    package mutating func pollingPOSTFailed(reason: String) -> [EngineClientAction] {
        guard self.postInFlight else { return [] }
        self.postInFlight = false
        switch self.phase {
        case .open:
            return self.teardown(.transportError(reason))
        case .closing:
            self.writeBuffer.removeAll()
            return self.finishClosingIfDone()
        case .idle, .opening, .closed:
            return []
        }
    }

    // MARK: Inputs: WebSocket

    /// The WebSocket finished its opening handshake.
    package mutating func webSocketOpened(now: MonotonicInstant) -> [EngineClientAction] {
        guard self.webSocketActive else { return [] }
        if self.upgrade == .connecting {
            self.upgrade = .probing
            return [.sendWebSocketFrames([EnginePacket.ping("probe").webSocketFrame(version: self.version)])]
        }
        return []
    }

    /// A WebSocket message arrived.
    package mutating func webSocketReceived(_ frame: EngineWebSocketFrame, now: MonotonicInstant) -> [EngineClientAction] {
        guard self.webSocketActive else { return [] }
        let packet: EnginePacket
        do {
            packet = try EnginePacket(webSocketFrame: frame, version: self.version)
        } catch {
            if self.transport == .webSocket {
                return self.teardown(.protocolError(error))
            }
            return self.abandonUpgrade()
        }
        if self.transport == .webSocket {
            guard self.phase == .opening || self.phase == .open else { return [] }
            if self.phase == .opening {
                guard case .open = packet else {
                    return self.teardown(.protocolError(.invalidHandshake("first packet is not open")))
                }
            }
            var actions: [EngineClientAction] = []
            self.handle(packet, now: now, into: &actions)
            return actions
        }
        // An upgrade probe.
        switch self.upgrade {
        case .connecting, .probing:
            guard packet == .pong("probe") else {
                return self.abandonUpgrade()
            }
            self.upgrade = .pausing
            var actions: [EngineClientAction] = []
            self.finishUpgradeIfDrained(into: &actions)
            return actions
        case .pausing, .none:
            // Nothing but `3probe` may arrive before the client sends `5`.
            return self.abandonUpgrade()
        }
    }

    /// The WebSocket failed or was closed by the peer.
    package mutating func webSocketFailed(reason: String) -> [EngineClientAction] {
        guard self.webSocketActive else { return [] }
        if self.transport == .webSocket {
            switch self.phase {
            case .opening, .open:
                self.webSocketActive = false
                return self.teardown(.transportError(reason))
            case .idle, .closing, .closed:
                return []
            }
        }
        return self.abandonUpgrade()
    }

    // MARK: Inputs: time

    /// The heartbeat timer fired.
    ///
    /// Closes with ``EngineCloseReason/pingTimeout`` when `now` reached the deadline; when a ping
    /// moved the deadline meanwhile, re-arms the timer instead.
    package mutating func heartbeatTimerFired(now: MonotonicInstant) -> [EngineClientAction] {
        guard let deadline = self.heartbeatDeadline else { return [] }
        switch self.phase {
        case .open:
            if now >= deadline {
                return self.teardown(.pingTimeout)
            }
            guard self.version == .v3 else {
                return [.scheduleHeartbeatTimeout(deadline)]
            }
            // v3: the client pings every pingInterval and then waits pingTimeout (engine.io-client 3.x
            // `setPing` / `onHeartbeat(pingTimeout)`).
            var actions: [EngineClientAction] = []
            if let nextPingAt = self.nextPingAt, now >= nextPingAt, let handshake = self.handshake {
                self.nextPingAt = nil
                self.heartbeatDeadline = now + handshake.pingTimeout
                self.write(.ping(""), into: &actions)
                if self.configuration.reportsPings { actions.append(.pingSent) }
            }
            let next = min(self.nextPingAt ?? self.heartbeatDeadline ?? deadline, self.heartbeatDeadline ?? deadline)
            actions.append(.scheduleHeartbeatTimeout(next))
            return actions
        case .closing:
            return self.teardown(.clientClosed)
        case .idle, .opening, .closed:
            return []
        }
    }
}
