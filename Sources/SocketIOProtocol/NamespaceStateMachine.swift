package import EngineIOProtocol

/// The connection of one Socket.IO namespace over a shared Engine.IO session.
///
/// socket.io-protocol v5, "Connection to a namespace" and "Disconnection from a namespace":
/// the client sends CONNECT (with an optional auth object), the server answers CONNECT with
/// `{"sid":…}` or CONNECT_ERROR with `{"message":…,"data":…}`; either side may send DISCONNECT.
///
/// Behaviour beyond the spec, as observed with python-socketio 5.x: events the server emits in
/// its connect handler arrive *before* the CONNECT acknowledgement. The machine buffers EVENT
/// and ACK packets received while connecting (up to ``maximumBufferedPackets``) and delivers
/// them right after ``NamespaceAction/connected(sid:)``, in arrival order.
///
/// A CONNECT_ERROR puts the machine back in `disconnected`, so ``connect(auth:)`` can retry.
///
/// With ``SocketProtocolRevision/v4`` (Socket.IO 2.x servers, socket.io-protocol v4) the main
/// namespace is joined implicitly (no CONNECT is sent for `/`, the server sends `40` on its own),
/// CONNECT carries no payload, and the acknowledgement carries no `sid` (the Engine.IO session
/// id given to ``transportOpened(engineSID:)`` stands in, as in socket.io-client-swift).
///
/// ```swift
/// var namespace = NamespaceStateMachine(namespace: "/")
/// namespace.connect(auth: ["token": "x"])   // [] until the transport is open
/// namespace.transportOpened()               // [.send(0{"token":"x"})]
/// namespace.receive(connectAck)             // [.connected(sid:), .deliverEvent(...)...]
/// ```
///
/// The machine also owns the socket's reported ``status`` (socket.io-client-swift's four
/// values). It is a separate fact from the namespace's protocol state: upstream sets it in its
/// `open` entry points (`connect(withPayload:timeoutAfter:withHandler:)`, `didConnect`,
/// `didDisconnect`, `setReconnecting`, the connect timeout), which a subclass may override and
/// an app or test may call directly. So the protocol inputs never change it: the server's
/// CONNECT acknowledgement makes the namespace connected (``isConnected``) and asks for
/// ``NamespaceAction/connected(sid:)``; the socket reports `connected` when its `didConnect`
/// feeds ``reportConnected(sid:)``. The status inputs (``startConnecting()``,
/// ``connectTimedOut()``, ``reportConnected(sid:)``, ``reportDisconnected()``,
/// ``connectRefused()``, ``setStatus(_:)``) change the status, and where the protocol state
/// would otherwise contradict it, that too: a socket reported connected is connected (so it
/// goes back to connecting and rejoins after a reconnect), a connected socket reported
/// disconnected has left (so a later connect sends CONNECT again).
///
/// ```swift
/// var namespace = NamespaceStateMachine(namespace: "/")
/// namespace.startConnecting()               // true: status .connecting
/// namespace.connect(auth: nil)              // [] until the transport is open
/// namespace.transportOpened()               // [.send(0)]
/// namespace.receive(connectAck)             // [.connected(sid:)]; status still .connecting
/// namespace.reportConnected(sid: "s1")      // [] (nothing was buffered): status .connected
/// ```
///
/// - Important: A value type with no locking; the owner keeps it under its one lock and
///   performs the returned actions in order after releasing it.
package struct NamespaceStateMachine: Sendable {
    private enum State: Sendable {
        /// Not connected and not trying.
        case disconnected
        /// Wants to connect; `sent` once CONNECT went out on the current transport.
        case connecting(auth: JSONValue?, sent: Bool, buffered: [SocketPacket])
        /// Connected with the server-assigned socket id; `auth` is re-sent after a reconnect.
        case connected(sid: String, auth: JSONValue?)
    }

    /// The namespace name, `/` for the main namespace.
    package let namespace: String
    /// The Socket.IO protocol revision spoken. The owner may change it while the namespace is
    /// not connected (a manager whose `.version` changed), so the next connection speaks it.
    package var revision: SocketProtocolRevision
    /// How many EVENT/ACK packets may arrive before the CONNECT acknowledgement; one more is a
    /// protocol violation.
    package var maximumBufferedPackets: Int

    private var state: State = .disconnected
    /// The status the socket reports; see the type's documentation.
    package private(set) var status: ConnectionStatus = .notConnected
    private var transportIsOpen = false
    private var engineSID: String?
    /// v4, main namespace: the server's implicit `40` arrived before the user asked to connect.
    private var implicitConnectReceived = false
    /// Events and acks that arrived before the CONNECT acknowledgement, held after it until
    /// ``reportConnected(sid:)`` (the socket reports `connected`, then delivers them, then
    /// emits `connect`: socket.io-client's `receiveBuffer` order).
    private var heldDeliveries: [SocketPacket] = []
    /// The most emits kept while connecting or reconnecting (socket.io-client's `sendBuffer`),
    /// sent in order once connected, after what arrived before the acknowledgement. `0`, the
    /// default: none are kept, an emit while not connected fails (socket.io-client-swift).
    package var maximumSendBuffer = 0
    /// The emits kept while connecting, with the owner's write id for each (its completion).
    private var sendBuffer: [(packet: SocketPacket, writeID: Int?)] = []
    /// `true` from the moment ``reportConnected(sid:)`` hands the kept emits out until the
    /// owner says they are sent (``sendBufferFlushed()``): an emit meanwhile joins the buffer,
    /// so it cannot overtake them.
    private var flushingSendBuffer = false
    /// `true` when the CONNECT payload comes from the owner's auth provider, asked before each
    /// CONNECT (``NamespaceAction/requestAuth(_:)``), instead of the payload given to `connect`.
    private var authFromProvider = false
    /// The provider request whose answer is awaited; an answer to any other is stale.
    private var pendingAuthRequest: Int?
    private var nextAuthRequest = 0

    // MARK: Connection state recovery

    /// The private session id of the last CONNECT acknowledgement; `nil` when the server does
    /// not recover sessions (its acknowledgement carries no `pid`).
    ///
    /// socket.io 4.6+ with `connectionStateRecovery` on: the client sends `{pid, offset}` (with
    /// its auth) in every later CONNECT, and the server restores the session it knew, replaying
    /// the packets the client missed before its acknowledgement. Kept across a disconnect, as
    /// socket.io-client keeps `_pid`.
    package private(set) var recoveryPID: String?
    /// The last argument of the last event delivered while ``recoveryPID`` was known, when it is
    /// a string: the offset the server appends to every event it can replay.
    package private(set) var recoveryOffset: String?
    /// `true` when the last CONNECT acknowledgement restored the previous session (its `pid`
    /// matches the one sent): the server replayed what was missed. socket.io-client's
    /// `socket.recovered`.
    package private(set) var recovered = false

    /// A machine for `namespace`, initially disconnected, with the transport not open.
    package init(namespace: String, revision: SocketProtocolRevision = .v5, maximumBufferedPackets: Int = 1_000) {
        self.namespace = namespace
        self.revision = revision
        self.maximumBufferedPackets = maximumBufferedPackets
    }

    /// The socket id the socket reports (socket.io-client-swift's public `sid`): `nil` until
    /// the first ``reportConnected(sid:)``, then the id it was given (kept while the socket
    /// reconnects), `""` after ``reportDisconnected()``. ``sid`` is the protocol's view: the
    /// id while connected.
    package private(set) var reportedSID: String?

    /// The socket id while connected.
    package var sid: String? {
        if case .connected(let sid, _) = self.state { return sid }
        return nil
    }

    /// `true` while connected.
    package var isConnected: Bool { self.sid != nil }

    /// `true` while waiting for the CONNECT acknowledgement (or for the transport to open).
    package var isConnecting: Bool {
        if case .connecting = self.state { return true }
        return false
    }

    // MARK: Inputs from the user

    /// Starts connecting with an optional auth payload (a JSON object).
    ///
    /// Sends CONNECT now if the transport is open, else when ``transportOpened()`` is called.
    /// Does nothing while already connecting or connected.
    package mutating func connect(auth: JSONValue?) -> [NamespaceAction] {
        self.connect(auth: auth, fromProvider: false)
    }

    /// Starts connecting with the CONNECT payload asked from the owner's auth provider before
    /// each CONNECT, this one and every rejoin after a reconnection (socket.io-client's `auth`
    /// function, called on every engine open): the machine returns
    /// ``NamespaceAction/requestAuth(_:)`` where it would send CONNECT, and sends it when
    /// ``authProvided(_:request:)`` answers.
    package mutating func connectAskingForAuth() -> [NamespaceAction] {
        self.connect(auth: nil, fromProvider: true)
    }

    private mutating func connect(auth: JSONValue?, fromProvider: Bool) -> [NamespaceAction] {
        guard case .disconnected = self.state else { return [] }
        self.authFromProvider = fromProvider
        if self.implicitConnectReceived && self.transportIsOpen {
            self.implicitConnectReceived = false
            let sid = self.engineSID ?? ""
            self.state = .connected(sid: sid, auth: auth)
            return [.connected(sid: sid)]
        }
        if self.transportIsOpen {
            return self.beginConnect(auth: auth)
        }
        self.state = .connecting(auth: auth, sent: false, buffered: [])
        return []
    }

    /// The provider's answer to `request`: CONNECT goes out with `auth`, if the machine still
    /// waits for that answer (not for a newer request, not after a disconnect or a transport
    /// loss).
    package mutating func authProvided(_ auth: JSONValue?, request: Int) -> [NamespaceAction] {
        guard self.pendingAuthRequest == request, self.transportIsOpen,
            case .connecting(_, false, let buffered) = self.state
        else { return [] }
        self.pendingAuthRequest = nil
        self.state = .connecting(auth: auth, sent: true, buffered: buffered)
        return self.connectActions(auth: auth)
    }

    /// The provider failed to answer `request`: the namespace is refused as by the server
    /// (``NamespaceAction/connectError(message:data:)``), and may be connected again.
    package mutating func authFailed(_ message: String, request: Int) -> [NamespaceAction] {
        self.settled(self.failAuth(message, request: request))
    }

    private mutating func failAuth(_ message: String, request: Int) -> [NamespaceAction] {
        guard self.pendingAuthRequest == request, case .connecting = self.state else { return [] }
        self.pendingAuthRequest = nil
        self.state = .disconnected
        return [.connectError(message: message, data: nil)]
    }

    /// Leaves the namespace: sends DISCONNECT when the server knows about us, and reports
    /// ``NamespaceDisconnectReason/clientDisconnect``.
    package mutating func disconnect() -> [NamespaceAction] {
        self.settled(self.leave())
    }

    private mutating func leave() -> [NamespaceAction] {
        self.pendingAuthRequest = nil
        switch self.state {
        case .disconnected:
            return []
        case .connecting(_, let sent, _):
            self.state = .disconnected
            var actions: [NamespaceAction] = []
            if sent && self.transportIsOpen {
                actions.append(.send(SocketPacket(type: .disconnect, namespace: self.namespace)))
            }
            actions.append(.disconnected(.clientDisconnect))
            return actions
        case .connected:
            self.state = .disconnected
            var actions: [NamespaceAction] = []
            if self.transportIsOpen {
                actions.append(.send(SocketPacket(type: .disconnect, namespace: self.namespace)))
            }
            actions.append(.disconnected(.clientDisconnect))
            return actions
        }
    }

    /// What became of an emit (``emit(_:writeID:volatile:)``).
    package enum EmitDecision: Sendable, Hashable {
        /// Connected: send it now.
        case send
        /// Kept in the send buffer; sent (``NamespaceAction/sendBuffered(_:writeID:)``) once
        /// connected, or discarded (``NamespaceAction/discardBuffered(writeIDs:)``).
        case buffered
        /// A volatile emit while not connected: dropped, as socket.io-client drops it when the
        /// transport is not writable.
        case dropped
        /// Not connected and no send buffer (or not connecting): upstream's "Tried emitting
        /// when not connected".
        case notConnected
        /// The send buffer holds ``NamespaceStateMachine/maximumSendBuffer`` emits already.
        case bufferFull(limit: Int)
    }

    /// An EVENT or ACK to send: now, later, or not at all. The status is checked and the emit
    /// kept in the same call, so a connect or disconnect cannot slip between the two.
    ///
    /// - Parameters:
    ///   - packet: The packet (kept only when buffered).
    ///   - writeID: The owner's id for the emit's completion, handed back when it is sent or
    ///     discarded.
    ///   - volatile: Drop instead of buffering.
    package mutating func emit(_ packet: @autoclosure () -> SocketPacket, writeID: Int?, volatile: Bool) -> EmitDecision {
        if self.status == .connected, case .connected = self.state {
            // While the kept emits are being sent, this one goes after them.
            guard self.flushingSendBuffer, !volatile else { return .send }
        } else {
            if volatile { return .dropped }
            guard self.keepsEmits else { return .notConnected }
        }
        guard self.sendBuffer.count < self.maximumSendBuffer else { return .bufferFull(limit: self.maximumSendBuffer) }
        self.sendBuffer.append((packet(), writeID))
        return .buffered
    }

    /// `true` when an emit now would be kept rather than refused: with a send buffer, while
    /// connecting, and while connected but not reported so yet (the acknowledgement arrived;
    /// the socket's `didConnect` has not run).
    package var keepsEmits: Bool {
        guard self.maximumSendBuffer > 0 else { return false }
        switch self.state {
        case .connecting: return true
        case .connected: return self.status != .connected || self.flushingSendBuffer
        case .disconnected: return false
        }
    }

    /// The kept emits, emptied: the ids of their completions (on every way out of connecting
    /// but connected).
    private mutating func discardSendBuffer() -> [NamespaceAction] {
        guard !self.sendBuffer.isEmpty else { return [] }
        let writeIDs = self.sendBuffer.map(\.writeID)
        self.sendBuffer = []
        return [.discardBuffered(writeIDs: writeIDs)]
    }

    /// `actions`, followed by the discard of the kept emits when the input left the namespace.
    private mutating func settled(_ actions: [NamespaceAction]) -> [NamespaceAction] {
        guard case .disconnected = self.state else { return actions }
        self.flushingSendBuffer = false
        return actions + self.discardSendBuffer()
    }

    /// The kept emits as sends, in order, emptied; until ``sendBufferFlushed()`` says they are
    /// sent, later emits are kept behind them.
    private mutating func flushSendBuffer() -> [NamespaceAction] {
        let sends = self.sendBuffer.map { NamespaceAction.sendBuffered($0.packet, writeID: $0.writeID) }
        self.sendBuffer = []
        self.flushingSendBuffer = !sends.isEmpty
        return sends
    }

    /// The owner sent the kept emits ``reportConnected(sid:)`` returned: the emits kept while
    /// it did, to send next (call again after sending them), or none, and emits go out
    /// directly again.
    package mutating func sendBufferFlushed() -> [NamespaceAction] {
        guard self.flushingSendBuffer, case .connected = self.state else {
            self.flushingSendBuffer = false
            return []
        }
        return self.flushSendBuffer()
    }

    // MARK: Inputs from the socket's status entry points

    /// `connect(withPayload:timeoutAfter:withHandler:)`: the status becomes `connecting` (and is
    /// reported again while connecting, as upstream's `didSet` does), unless connected.
    ///
    /// The protocol state is not changed: the join follows with ``connect(auth:)``.
    ///
    /// - Returns: `true` when the status was set; `false` when connected.
    package mutating func startConnecting() -> Bool {
        guard self.status != .connected else { return false }
        self.status = .connecting
        return true
    }

    /// The connect timeout of `connect(withPayload:timeoutAfter:withHandler:)` expired: a socket
    /// still connecting (or not connected) becomes `disconnected`.
    ///
    /// The protocol state is not changed: leaving follows, and ``disconnect()`` sends DISCONNECT
    /// when CONNECT went out.
    ///
    /// - Returns: `true` when the status was set.
    package mutating func connectTimedOut() -> Bool {
        guard self.status == .connecting || self.status == .notConnected else { return false }
        self.status = .disconnected
        return true
    }

    /// `didConnect(toNamespace:payload:)`: the status becomes `connected`, unless it is.
    ///
    /// Normally the CONNECT acknowledgement was received first (its ``NamespaceAction/connected(sid:)``
    /// is what calls `didConnect`). Called directly (a test simulating a connect), it connects
    /// the namespace too: a waiting CONNECT is not awaited any more, and a socket that was not
    /// joining counts as joined, so a reconnect takes it back to connecting and rejoins it.
    ///
    /// - Parameter sid: the socket id the report carries; the namespace keeps an acknowledged
    ///   id, else uses this one (or the Engine.IO session's, or `""`).
    /// - Returns: `nil` when already connected; otherwise the events and acks that arrived
    ///   before the acknowledgement, in order, to deliver now, before the socket's `connect`
    ///   event (socket.io-client's `receiveBuffer` order).
    package mutating func reportConnected(sid: String?) -> [NamespaceAction]? {
        guard self.status != .connected else { return nil }
        self.status = .connected
        self.reportedSID = sid
        switch self.state {
        case .connected:
            let held = self.heldDeliveries
            self.heldDeliveries = []
            return held.map { self.delivery(of: $0) } + self.flushSendBuffer()
        case .connecting(let auth, _, let buffered):
            self.state = .connected(sid: sid ?? self.engineSID ?? "", auth: auth)
            return buffered.map { self.delivery(of: $0) } + self.flushSendBuffer()
        case .disconnected:
            self.implicitConnectReceived = false
            self.state = .connected(sid: sid ?? self.engineSID ?? "", auth: nil)
            return []
        }
    }

    /// `didDisconnect(reason:)`: the status becomes `disconnected`, unless it is.
    ///
    /// Every disconnect the machine itself reports (``NamespaceAction/disconnected(_:)``) has
    /// left the namespace already. Called directly on a connected namespace (a test simulating
    /// a disconnect), it leaves it without telling the server, as upstream's `didDisconnect`
    /// sends nothing, so a later ``connect(auth:)`` sends CONNECT again. A CONNECT still
    /// waiting for its acknowledgement keeps waiting: the acknowledgement connects the socket,
    /// as upstream's does.
    ///
    /// - Returns: `true` when the status was set.
    package mutating func reportDisconnected() -> Bool {
        guard self.status != .disconnected else { return false }
        self.status = .disconnected
        self.reportedSID = ""
        if case .connected = self.state {
            self.state = .disconnected
        }
        return true
    }

    /// The server refused the connection (``NamespaceAction/connectError(message:data:)``): a
    /// socket reported connecting becomes `disconnected`, so `connect` can be called again.
    ///
    /// - Returns: `true` when the status was set.
    package mutating func connectRefused() -> Bool {
        guard self.status == .connecting else { return false }
        self.status = .disconnected
        return true
    }

    /// Sets the status as reported, unconditionally (upstream's `status = x`; `setReconnecting`
    /// sets `connecting`). The protocol state is not changed.
    package mutating func setStatus(_ status: ConnectionStatus) {
        self.status = status
    }

    // MARK: Inputs from the Engine.IO session

    /// The Engine.IO session opened (or reopened after a reconnect).
    ///
    /// - Parameter engineSID: the Engine.IO session id; used as the socket id by the v4 revision,
    ///   whose CONNECT acknowledgement carries none.
    package mutating func transportOpened(engineSID: String? = nil) -> [NamespaceAction] {
        self.transportIsOpen = true
        self.engineSID = engineSID
        guard case .connecting(let auth, false, _) = self.state else { return [] }
        return self.beginConnect(auth: auth)
    }

    /// The transport is open and CONNECT is due: sent now with `auth`, or asked from the
    /// provider first.
    private mutating func beginConnect(auth: JSONValue?) -> [NamespaceAction] {
        guard self.authFromProvider, self.revision == .v5 else {
            self.state = .connecting(auth: auth, sent: true, buffered: [])
            return self.connectActions(auth: auth)
        }
        let request = self.nextAuthRequest
        self.nextAuthRequest &+= 1
        self.pendingAuthRequest = request
        self.state = .connecting(auth: auth, sent: false, buffered: [])
        return [.requestAuth(request)]
    }

    /// The Engine.IO session closed.
    ///
    /// - Parameter willReconnect: `true` when the manager will open a new session; a connected
    ///   namespace then goes back to connecting (CONNECT is sent again on the next
    ///   ``transportOpened()``) and reports ``NamespaceAction/reconnecting``; otherwise it
    ///   reports ``NamespaceDisconnectReason/transportClose``.
    package mutating func transportClosed(willReconnect: Bool) -> [NamespaceAction] {
        self.settled(self.closeTransport(willReconnect: willReconnect))
    }

    private mutating func closeTransport(willReconnect: Bool) -> [NamespaceAction] {
        self.transportIsOpen = false
        self.pendingAuthRequest = nil
        self.implicitConnectReceived = false
        switch self.state {
        case .disconnected:
            return []
        case .connecting(let auth, _, _):
            if willReconnect {
                self.state = .connecting(auth: auth, sent: false, buffered: [])
                return []
            }
            self.state = .disconnected
            return [.disconnected(.transportClose)]
        case .connected(_, let auth):
            if willReconnect {
                self.state = .connecting(auth: auth, sent: false, buffered: [])
                return [.reconnecting]
            }
            self.state = .disconnected
            return [.disconnected(.transportClose)]
        }
    }

    /// A packet for this namespace arrived (binary packets already reassembled).
    package mutating func receive(_ packet: SocketPacket) -> [NamespaceAction] {
        self.settled(self.receivePacket(packet))
    }

    private mutating func receivePacket(_ packet: SocketPacket) -> [NamespaceAction] {
        switch packet.type {
        case .connect:
            return self.receiveConnect(packet)
        case .connectError:
            return self.receiveConnectError(packet)
        case .disconnect:
            switch self.state {
            case .disconnected:
                return []
            case .connecting, .connected:
                self.state = .disconnected
                return [.disconnected(.serverDisconnect)]
            }
        case .event, .binaryEvent, .ack, .binaryAck:
            switch self.state {
            case .disconnected:
                return []
            case .connecting(let auth, let sent, var buffered):
                guard buffered.count < self.maximumBufferedPackets else {
                    self.state = .disconnected
                    var actions: [NamespaceAction] = []
                    if self.transportIsOpen {
                        actions.append(.send(SocketPacket(type: .disconnect, namespace: self.namespace)))
                    }
                    actions.append(.disconnected(.tooManyPacketsBeforeConnect))
                    return actions
                }
                buffered.append(packet)
                self.state = .connecting(auth: auth, sent: sent, buffered: buffered)
                return []
            case .connected:
                return [self.delivery(of: packet)]
            }
        }
    }

    /// ``receive(_:)`` for the packet nearly every packet is, with no list: the delivery of an
    /// EVENT or ACK while connected. `nil` for any other packet or state, which then goes to
    /// ``receive(_:)``.
    package mutating func deliveryWhileConnected(_ packet: SocketPacket) -> NamespaceAction? {
        guard case .connected = self.state else { return nil }
        switch packet.type {
        case .event, .binaryEvent, .ack, .binaryAck: return self.delivery(of: packet)
        case .connect, .connectError, .disconnect: return nil
        }
    }

    // MARK: Helpers

    private mutating func receiveConnect(_ packet: SocketPacket) -> [NamespaceAction] {
        guard case .connecting(let auth, _, let buffered) = self.state else {
            if case .disconnected = self.state, self.revision == .v4, self.namespace == "/" {
                self.implicitConnectReceived = true  // joined implicitly; reported on connect(auth:)
            }
            return []  // duplicate or unsolicited CONNECT: ignored, as socket.io-client does
        }
        let sid: String
        if let announced = packet.data?["sid"]?.stringValue {
            sid = announced
        } else if self.revision == .v4 {
            sid = self.engineSID ?? ""
        } else {
            // socket.io-client: "It seems you are trying to reach a Socket.IO server in v2.x
            // with a v3.x client, but they are not compatible".
            self.state = .disconnected
            return [.connectError(message: "CONNECT acknowledgement without sid (server is not Socket.IO v5?)", data: nil)]
        }
        // Recovery: the session was restored when the acknowledgement names the `pid` we sent.
        let pid = packet.data?["pid"]?.stringValue
        self.recovered = pid != nil && pid == self.recoveryPID
        if pid != self.recoveryPID {
            // A new session: an offset of the old one means nothing to it.
            self.recoveryOffset = nil
        }
        self.recoveryPID = pid
        self.state = .connected(sid: sid, auth: auth)
        // What arrived first (a recovering server's replay, or what a connect handler emitted)
        // waits for the socket's `connected` report: delivered then, before `connect`.
        self.heldDeliveries = buffered
        return [.connected(sid: sid)]
    }

    private mutating func receiveConnectError(_ packet: SocketPacket) -> [NamespaceAction] {
        guard case .connecting = self.state else { return [] }
        self.state = .disconnected
        switch packet.data {
        case .string(let message)?:
            return [.connectError(message: message, data: nil)]
        case .object(let object)?:
            let message = object["message"]?.stringValue ?? "connect error"
            return [.connectError(message: message, data: object["data"])]
        default:
            return [.connectError(message: "connect error", data: nil)]
        }
    }

    /// v5: CONNECT with the auth payload (and, once a session is known, `pid` and `offset`
    /// before its members, as socket.io-client's `Object.assign({pid, offset}, auth)`). v4:
    /// CONNECT without payload, and none at all for `/`.
    private func connectActions(auth: JSONValue?) -> [NamespaceAction] {
        switch self.revision {
        case .v5:
            return [.send(SocketPacket(type: .connect, namespace: self.namespace, data: self.connectPayload(auth: auth)))]
        case .v4:
            guard self.namespace != "/" else { return [] }
            return [.send(SocketPacket(type: .connect, namespace: self.namespace))]
        }
    }

    /// The CONNECT payload: `auth`, with `pid` and `offset` first when a session is known.
    private func connectPayload(auth: JSONValue?) -> JSONValue? {
        guard let pid = self.recoveryPID else { return auth }
        var object = JSONObject()
        object["pid"] = .string(pid)
        if let offset = self.recoveryOffset {
            object["offset"] = .string(offset)
        }
        switch auth {
        case nil, .null?:
            break
        case .object(let members)?:
            for (key, value) in members {
                object[key] = value
            }
        case let other?:
            return other  // not an object: sent as given (socket.io-client's auth is an object)
        }
        return .object(object)
    }

    /// The action delivering `packet`; an event's last argument becomes the recovery offset
    /// when it is one (``endsWithRecoveryOffset(asksForAck:lastArgumentIsString:)``).
    private mutating func delivery(of packet: SocketPacket) -> NamespaceAction {
        switch packet.type {
        case .ack, .binaryAck:
            return .deliverAck(packet)
        default:
            if case .array(let elements)? = packet.data, case .string(let offset)? = elements.last,
                self.endsWithRecoveryOffset(asksForAck: packet.ackID != nil, lastArgumentIsString: true)
            {
                self.recoveryOffset = offset
            }
            return .deliverEvent(packet)
        }
    }

    /// Whether an event's last argument is the offset a recovering server appended, not the
    /// application's: a session is known (the server recovers state), the event asks for no
    /// ack, and its last argument is a string.
    ///
    /// socket.io 4.6+ with `connectionStateRecovery` appends the offset to every event it sends
    /// without an ack (its `SessionAwareAdapter`), and socket.io-client's `onevent` reads the
    /// last argument only after pushing an ack function for an event that asks for one. The
    /// offset stays among the event's arguments (socket.io-client hands it to handlers too);
    /// what decodes an event as a type leaves it out.
    package func endsWithRecoveryOffset(asksForAck: Bool, lastArgumentIsString: Bool) -> Bool {
        self.recoveryPID != nil && !asksForAck && lastArgumentIsString
    }
}

/// What the owner of a ``NamespaceStateMachine`` must do, in order.
package enum NamespaceAction: Sendable, Hashable {
    /// Encode and send this packet over the Engine.IO session.
    case send(SocketPacket)
    /// Send an emit kept while connecting (in order, once connected); `writeID` is the one
    /// given to ``NamespaceStateMachine/emit(_:writeID:volatile:)``.
    case sendBuffered(SocketPacket, writeID: Int?)
    /// The emits kept while connecting were discarded (the namespace was left or refused):
    /// their ids, in order.
    case discardBuffered(writeIDs: [Int?])
    /// Ask the auth provider for the CONNECT payload; answer with
    /// ``NamespaceStateMachine/authProvided(_:request:)`` (or `authFailed`) and this number.
    case requestAuth(Int)
    /// The namespace is connected (socket.io-client-swift emits `connect`).
    case connected(sid: String)
    /// Hand an EVENT / BINARY_EVENT to the event handlers.
    case deliverEvent(SocketPacket)
    /// Resolve the ack callback of an ACK / BINARY_ACK.
    case deliverAck(SocketPacket)
    /// The server refused the connection; the namespace is disconnected and may retry.
    case connectError(message: String, data: JSONValue?)
    /// The namespace was connected and now waits for the session to come back.
    case reconnecting
    /// The namespace is disconnected.
    case disconnected(NamespaceDisconnectReason)
}

/// Why a namespace disconnected (names follow socket.io-client's disconnect reasons).
package enum NamespaceDisconnectReason: Sendable, Hashable {
    /// The server sent DISCONNECT ("io server disconnect").
    case serverDisconnect
    /// The user disconnected ("io client disconnect").
    case clientDisconnect
    /// The Engine.IO session closed with no reconnect ("transport close").
    case transportClose
    /// The server sent more EVENT/ACK packets before its CONNECT acknowledgement than allowed.
    case tooManyPacketsBeforeConnect
}
