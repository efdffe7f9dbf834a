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
        /// The most bytes (encoded as polling records) the write buffer holds: writes waiting
        /// for the handshake, behind the `POST` in flight, or in the upgrade window. A write
        /// that would go past it is refused (``EngineBufferOverflow``). Default
        /// ``defaultMaximumBufferedBytes`` (16 MiB).
        package var maximumBufferedBytes: Int
        /// The most packets the write buffer holds (bounds the per-packet overhead of many tiny
        /// writes). Default ``defaultMaximumBufferedPackets`` (262,144).
        package var maximumBufferedPackets: Int

        /// The most packets python-engineio accepts in one `POST`: 16 (it refuses a payload of
        /// more, `len(packets) > Payload.max_decode_packets`, in its v4 and v3 decoders alike).
        /// Every packet counts, control packets included. Fewer packets per `POST` means more
        /// round trips for a burst, and the server's per-request cost bounds its throughput.
        package static let pythonEngineIOPacketsPerPOST = 16

        /// 16 MiB: about 16 polling bodies at python-engineio's default `maxPayload` of 1 MB, far
        /// more than an application writes while one `POST` is in flight.
        package static let defaultMaximumBufferedBytes = 16 << 20

        /// 262,144 packets: a burst of a quarter of a million emits while one `POST` is in flight.
        package static let defaultMaximumBufferedPackets = 1 << 18

        /// Defaults: polling first with an upgrade to WebSocket when offered, `EIO=4`, 16 MiB
        /// bodies, no packet cap, no ping reports, a write buffer of at most 16 MiB and
        /// 262,144 packets.
        package init(
            forcePolling: Bool = false,
            forceWebSockets: Bool = false,
            maximumPollingBodyLength: Int = PollingPayloadDecoder.defaultMaximumLength,
            protocolVersion: EngineProtocolVersion = .v4,
            maximumPacketsPerPOST: Int? = nil,
            reportsPings: Bool = false,
            maximumBufferedBytes: Int = Configuration.defaultMaximumBufferedBytes,
            maximumBufferedPackets: Int = Configuration.defaultMaximumBufferedPackets
        ) {
            self.forcePolling = forcePolling
            self.forceWebSockets = forceWebSockets
            self.maximumPollingBodyLength = maximumPollingBodyLength
            self.protocolVersion = protocolVersion
            self.maximumPacketsPerPOST = maximumPacketsPerPOST.map { max(1, $0) }
            self.reportsPings = reportsPings
            self.maximumBufferedBytes = max(1, maximumBufferedBytes)
            self.maximumBufferedPackets = max(1, maximumBufferedPackets)
        }
    }

    /// The configuration given at creation.
    package let configuration: Configuration

    /// Where the session is (see `EngineClientStateMachine+State.swift`).
    var state: State = .idle
    /// Packets to send: before the handshake, while a `POST` is in flight, or while paused
    /// for the upgrade. Bounded by ``Configuration/maximumBufferedBytes`` and
    /// ``Configuration/maximumBufferedPackets`` for writes (control packets always fit).
    var writeBuffer = EngineOutboundBuffer()

    var version: EngineProtocolVersion { self.configuration.protocolVersion }

    /// A machine that has not started.
    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: Observers

    /// The session id once the handshake is done.
    package var sid: String? { self.handshake?.sid }

    /// The transport carrying the session (after ``start()``).
    package var currentTransport: EngineTransport { self.transport }

    /// `true` between the `open` packet and the end of the session.
    package var isOpen: Bool {
        if case .open = self.state { return true }
        return false
    }

    /// `true` once ``start()`` (or ``close()``) was called.
    package var hasStarted: Bool {
        if case .idle = self.state { return false }
        return true
    }

    /// The reason the session ended, once closed.
    package var closeReason: EngineCloseReason? {
        if case .closed(let closed) = self.state { return closed.reason }
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
        let transport = self.transport
        for packet in packets {
            let length: Int
            switch packet {
            case .binaryMessage(let bytes) where transport == .webSocket: length = bytes.count
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
        guard case .idle = self.state else { return [] }
        if self.configuration.forceWebSockets {
            self.state = .opening(.webSocket)
            return [.openWebSocket(sid: nil)]
        }
        self.state = .opening(.polling(getInFlight: true))
        return [.sendPollingGET(sid: nil)]
    }

    /// Closes the session from the client side.
    ///
    /// Over WebSocket, sends `1` and closes the socket. Over polling, sends `1` in a `POST` (after
    /// anything still buffered) and reports ``EngineClientAction/closed(_:)`` once that `POST`
    /// finished. Before the handshake, closes at once.
    package mutating func close() -> [EngineClientAction] {
        switch self.state {
        case .idle:
            self.state = .closed(Closed(reason: .clientClosed, transport: .polling, handshake: nil))
            return [.closed(.clientClosed)]
        case .opening:
            return self.teardown(.clientClosed)
        case .open(let session):
            guard case .polling(let polling) = session.link else {
                var actions: [EngineClientAction] = [.sendWebSocketFrames([EnginePacket.close.webSocketFrame(version: self.version)])]
                actions += self.teardown(.clientClosed)
                return actions
            }
            var actions: [EngineClientAction] = []
            if polling.upgrade != .none {
                actions.append(.closeWebSocket)
            }
            self.state = .closing(
                Closing(
                    handshake: session.handshake, getInFlight: polling.getInFlight, postInFlight: polling.postInFlight,
                    heartbeatDeadline: session.heartbeatDeadline))
            self.buffer([.close], writeID: nil)
            if !polling.postInFlight {
                actions += self.makePOST()
            }
            return actions
        case .closing, .closed:
            return []
        }
    }

    /// What still has to reach the server after the owner drops a machine that is closing
    /// over polling: see ``abandon()``.
    package struct CloseOut: Sendable, Equatable {
        /// The `POST` in flight carries the close packet, or goes before it: let it finish
        /// instead of cancelling it.
        package var keepsPOSTInFlight: Bool
        /// The `GET` in flight ends only after the close went out: cut first, the server
        /// would see the poll end before the close, an error rather than a close.
        package var keepsGETInFlight: Bool
        /// A `POST` of its own for the close packet that still waited behind the one in flight:
        /// `(sid, body)`.
        package var closePOST: (sid: String, body: [UInt8])?

        package static let nothing = CloseOut(keepsPOSTInFlight: false, keepsGETInFlight: false, closePOST: nil)

        package static func == (lhs: CloseOut, rhs: CloseOut) -> Bool {
            lhs.keepsPOSTInFlight == rhs.keepsPOSTInFlight && lhs.keepsGETInFlight == rhs.keepsGETInFlight
                && lhs.closePOST?.sid == rhs.closePOST?.sid
                && lhs.closePOST?.body == rhs.closePOST?.body
        }
    }

    /// The owner drops this session for a new attempt (a reconnection that starts right after
    /// ``close()``): ends it as a client close, and returns what must still go out so that the
    /// server learns of the close now rather than at its ping timeout. A server with
    /// connection state recovery keeps a session only for a disconnect it has seen, so a
    /// reconnection that overtook the close would find nothing to recover.
    ///
    /// Over polling while closing: the `POST` in flight is kept, a close packet still
    /// buffered behind it goes in a `POST` of its own, and the `GET` in flight is cancelled
    /// only after them (the server answers it once it has the close). Otherwise nothing: over WebSocket the
    /// close frame is already queued, and an open session was not closed by the client.
    package mutating func abandon() -> CloseOut {
        guard case .closing(let closing) = self.state else {
            return .nothing
        }
        var closeOut = CloseOut(keepsPOSTInFlight: closing.postInFlight, keepsGETInFlight: closing.getInFlight, closePOST: nil)
        if !self.writeBuffer.isEmpty {
            let body: [UInt8] =
                switch self.version {
                case .v4: EnginePollingPayload.encode([.close])
                case .v3: EnginePollingPayloadV3.encode([.close])
                }
            closeOut.closePOST = (closing.handshake.sid, body)
        }
        self.state = .closed(Closed(reason: .clientClosed, transport: .polling, handshake: closing.handshake))
        self.writeBuffer.removeAll()
        return closeOut
    }

    // MARK: Inputs: writes

    /// Sends packets (normally messages), in order.
    ///
    /// Before the handshake they are buffered; over polling they go in the next `POST` (at most
    /// one in flight, at most `maxPayload` bytes each); over WebSocket one frame each. After
    /// the session closed (or while closing) they are dropped, and so is a write the buffer
    /// has no room for (see ``write(_:writeID:)``, which says so).
    package mutating func send(_ packets: [EnginePacket]) -> [EngineClientAction] {
        self.send(packets, writeID: nil)
    }

    /// Sends packets as one write numbered `writeID` (the owner's, increasing): the send that
    /// carries its last packet is followed by ``EngineClientAction/carriesWrites(through:)``,
    /// whichever path it takes (buffered before the handshake, behind a `POST` in flight or the
    /// packet cap, in the upgrade window, or at once over WebSocket). A write the machine
    /// drops (closing or closed, or no room in the buffer) is never carried.
    package mutating func send(_ packets: [EnginePacket], writeID: Int?) -> [EngineClientAction] {
        (try? self.write(packets, writeID: writeID)) ?? []
    }

    /// Sends one packet; see ``send(_:)-([EnginePacket])``.
    package mutating func send(_ packet: EnginePacket) -> [EngineClientAction] {
        self.send([packet])
    }

    /// ``send(_:writeID:)``, refusing a write that would take the write buffer past its bound.
    ///
    /// A write is buffered before the handshake, behind the `POST` in flight, and in the
    /// upgrade window; the buffer holds at most ``Configuration/maximumBufferedBytes`` (as
    /// polling records) and ``Configuration/maximumBufferedPackets``. A write that does not fit
    /// is refused whole, nothing of it is buffered, and the machine is unchanged; the writes
    /// before it are unaffected. Over an open WebSocket nothing is buffered here (the owner's
    /// send queue has its own bound, ``EngineWebSocketSendQueue``).
    ///
    /// - Throws: ``EngineBufferOverflow``.
    package mutating func write(_ packets: [EnginePacket], writeID: Int?) throws(EngineBufferOverflow) -> [EngineClientAction] {
        guard !packets.isEmpty else { return [] }
        switch self.state {
        case .idle, .closing, .closed:
            return []
        case .opening:
            try self.checkRoom(for: packets)
            self.buffer(packets, writeID: writeID)
            return []
        case .open(let session):
            if case .webSocket = session.link {
                let frames = EngineClientAction.sendWebSocketFrames(packets.map { $0.webSocketFrame(version: self.version) })
                // One array literal of the right size: one allocation.
                guard let writeID else { return [frames] }
                return [frames, .carriesWrites(through: writeID)]
            }
            try self.checkRoom(for: packets)
            self.buffer(packets, writeID: writeID)
            var actions: [EngineClientAction] = []
            self.flushWrites(into: &actions)
            return actions
        }
    }

    /// Bytes (as polling records) and packets in the write buffer.
    package var bufferedWrites: (bytes: Int, packets: Int) { (self.writeBuffer.encodedLength, self.writeBuffer.count) }

    // MARK: Inputs: polling

    /// The polling `GET` finished with HTTP 200 and this body.
    package mutating func pollingGETCompleted(body: [UInt8], now: MonotonicInstant) -> [EngineClientAction] {
        switch self.state {
        case .opening(.polling(getInFlight: true)):
            self.state = .opening(.polling(getInFlight: false))
        case .open:
            let wasInFlight = self.withPolling { polling -> Bool in
                defer { polling.getInFlight = false }
                return polling.getInFlight
            }
            guard wasInFlight == true else { return [] }
        case .closing(var closing):
            guard closing.getInFlight else { return [] }
            closing.getInFlight = false
            self.state = .closing(closing)
            return self.finishClosingIfDone()
        case .idle, .opening, .closed:
            return []
        }
        // A v4 message keeps its record's text, `4` included (handed on with no copy to add it).
        let packets: [EngineInboundPacket]
        do {
            switch self.version {
            case .v4:
                packets = try EnginePollingPayload.decode(
                    body, maximumLength: self.configuration.maximumPollingBodyLength, as: EngineInboundPacket.self)
            case .v3:
                packets = try EnginePollingPayloadV3.decode(body, maximumLength: self.configuration.maximumPollingBodyLength)
                    .map(EngineInboundPacket.packet)
            }
        } catch {
            return self.teardown(.protocolError(error))
        }
        var actions: [EngineClientAction] = []
        if case .opening = self.state {
            guard case .packet(.open)? = packets.first else {
                return self.teardown(.protocolError(.invalidHandshake("first packet is not open")))
            }
        }
        for packet in packets {
            self.handle(packet, now: now, into: &actions)
            guard self.isOpen else { return actions }
        }
        guard let polling = self.polling else { return actions }
        if polling.upgrade == .pausing {
            self.finishUpgradeIfDrained(into: &actions)
        } else {
            self.withPolling { $0.getInFlight = true }
            actions.append(.sendPollingGET(sid: self.sid))
        }
        return actions
    }

    /// The polling `GET` failed (network error or non-200 status).
    package mutating func pollingGETFailed(reason: String) -> [EngineClientAction] {
        switch self.state {
        case .opening(.polling(getInFlight: true)):
            self.state = .opening(.polling(getInFlight: false))
            return self.teardown(.transportError(reason))
        case .open:
            let wasInFlight = self.withPolling { polling -> Bool in
                defer { polling.getInFlight = false }
                return polling.getInFlight
            }
            guard wasInFlight == true else { return [] }
            return self.teardown(.transportError(reason))
        case .closing(var closing):
            guard closing.getInFlight else { return [] }
            closing.getInFlight = false
            self.state = .closing(closing)
            return self.finishClosingIfDone()
        case .idle, .opening, .closed:
            return []
        }
    }

    /// The polling `POST` finished with HTTP 200.
    package mutating func pollingPOSTCompleted(now: MonotonicInstant) -> [EngineClientAction] {
        switch self.state {
        case .closing(var closing):
            guard closing.postInFlight else { return [] }
            closing.postInFlight = false
            self.state = .closing(closing)
            if !self.writeBuffer.isEmpty {
                return self.makePOST()
            }
            return self.finishClosingIfDone()
        case .open:
            let upgrade = self.withPolling { polling -> Upgrade? in
                guard polling.postInFlight else { return nil }
                polling.postInFlight = false
                return polling.upgrade
            }
            guard let upgrade = upgrade ?? nil else { return [] }
            var actions: [EngineClientAction] = []
            if upgrade == .pausing {
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
        switch self.state {
        case .open:
            let wasInFlight = self.withPolling { polling -> Bool in
                defer { polling.postInFlight = false }
                return polling.postInFlight
            }
            guard wasInFlight == true else { return [] }
            return self.teardown(.transportError(reason))
        case .closing(var closing):
            guard closing.postInFlight else { return [] }
            closing.postInFlight = false
            self.state = .closing(closing)
            self.writeBuffer.removeAll()
            return self.finishClosingIfDone()
        case .idle, .opening, .closed:
            return []
        }
    }

    // MARK: Inputs: WebSocket

    /// The WebSocket finished its opening handshake.
    package mutating func webSocketOpened(now: MonotonicInstant) -> [EngineClientAction] {
        guard self.upgrade == .connecting else { return [] }
        self.withPolling { $0.upgrade = .probing }
        return [.sendWebSocketFrames([EnginePacket.ping("probe").webSocketFrame(version: self.version)])]
    }

    /// A WebSocket message arrived.
    package mutating func webSocketReceived(_ frame: EngineWebSocketFrame, now: MonotonicInstant) -> [EngineClientAction] {
        guard self.webSocketActive else { return [] }
        // The common case, a message on the open session: its text is the packet, handed on
        // as it is (no copy to strip the type digit).
        if case .text(let text) = frame, text.utf8.first == UInt8(ascii: "4"), self.transport == .webSocket, self.isOpen {
            self.packetArrived(now: now)
            return [.deliverMessage(EngineMessageText(packet: text))]
        }
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
            if case .opening = self.state {
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
            self.withPolling { $0.upgrade = .pausing }
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
            // The socket is gone already: nothing to close.
            return self.teardown(.transportError(reason), webSocketGone: true)
        }
        return self.abandonUpgrade()
    }

    // MARK: Inputs: time

    /// The heartbeat timer fired.
    ///
    /// v4: ends the session with ``EngineCloseReason/pingTimeout`` when the deadline passed
    /// (otherwise re-arms the timer). v3: sends the client's ping when due, and ends the
    /// session when the pong is overdue.
    package mutating func heartbeatTimerFired(now: MonotonicInstant) -> [EngineClientAction] {
        switch self.state {
        case .open(var session):
            let deadline = session.heartbeatDeadline
            if now >= deadline {
                return self.teardown(.pingTimeout)
            }
            guard self.version == .v3 else {
                return [.scheduleHeartbeatTimeout(deadline)]
            }
            // v3: the client pings every pingInterval and then waits pingTimeout (engine.io-client 3.x
            // `setPing` / `onHeartbeat(pingTimeout)`).
            var actions: [EngineClientAction] = []
            if let nextPingAt = session.nextPingAt, now >= nextPingAt {
                session.nextPingAt = nil
                session.heartbeatDeadline = now + session.handshake.pingTimeout
                self.state = .open(session)
                self.writeControl(.ping(""), into: &actions)
                if self.configuration.reportsPings { actions.append(.pingSent) }
            }
            guard case .open(let current) = self.state else { return actions }
            let next = min(current.nextPingAt ?? current.heartbeatDeadline, current.heartbeatDeadline)
            actions.append(.scheduleHeartbeatTimeout(next))
            return actions
        case .closing:
            return self.teardown(.clientClosed)
        case .idle, .opening, .closed:
            return []
        }
    }
}
