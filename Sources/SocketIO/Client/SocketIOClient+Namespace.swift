import EngineIOProtocol
import Foundation
import SocketIOProtocol

/// The socket's side of the namespace connection: the inputs the manager feeds into the
/// socket's `NamespaceStateMachine` and the actions that come out of it.
///
/// socket.io-protocol v5, "Connection to a namespace" / "Disconnection from a namespace". The
/// machine is read and changed under the socket's one lock; its actions are performed after
/// the lock is released, in order, through upstream's `open` entry points (`didConnect`,
/// `didDisconnect`, `setReconnecting`, `handleEvent`, `handleAck`), so subclasses see the same
/// calls as with socket.io-client-swift.
extension SocketIOClient {
    /// The Engine.IO session opened (or reopened after a reconnect): sends the CONNECT of a
    /// socket that is waiting, with the auth it was given (the same auth on every rejoin).
    ///
    /// - Parameter engineSID: the Engine.IO session id (the socket id for Socket.IO 2.x).
    func transportDidOpen(engineSID: String?) {
        let actions = self.state.withLock { $0.session.transportOpened(engineSID: engineSID) }
        self.perform(actions, reason: "", receiving: nil)
    }

    /// The Engine.IO session closed.
    ///
    /// - Parameters:
    ///   - reason: reported with `reconnect` (or `disconnect` when no reconnect follows).
    ///   - willReconnect: `true` when the manager opens a new session; a connected socket then
    ///     goes back to `connecting` and rejoins with its auth when the session reopens.
    func transportDidClose(reason: String, willReconnect: Bool) {
        let actions = self.state.withLock { $0.session.transportClosed(willReconnect: willReconnect) }
        self.perform(actions, reason: reason, receiving: nil)
        if !willReconnect {
            // upstream reports `disconnect` to every socket that is not already disconnected.
            self.didDisconnect(reason: reason)
        }
    }

    /// Leaves the namespace: DISCONNECT when the server knows the socket, then `disconnect`
    /// with upstream's `"Namespace leave"`.
    func leave() {
        self.cancelAuthTask()
        let actions = self.state.withLock { $0.session.disconnect() }
        self.perform(actions, reason: "Namespace leave", receiving: nil)
        self.didDisconnect(reason: "Namespace leave")
    }

    /// The packet whose reception produced the actions being performed.
    enum ReceivedPacket {
        /// Through the public `handlePacket(_:)`, in upstream's shape.
        case upstream(SocketPacket)
        /// From the network, as the protocol layer decoded it (binary attachments in place).
        case network(SocketIOProtocol.SocketPacket)

        var isConnectError: Bool {
            switch self {
            case .upstream(let packet): packet.type == .error
            case .network(let packet): packet.type == .connectError
            }
        }
    }

    /// Performs the machine's actions, in order, with no lock held.
    ///
    /// - Parameters:
    ///   - reason: the transport's close reason, for `.reconnecting` and a transport close.
    ///   - received: the packet being received, if any: an event or ack delivered at once is
    ///     handed on as received (for an upstream packet the machine only saw its header).
    func perform(_ actions: some Collection<SessionAction>, reason: String, receiving received: ReceivedPacket?) {
        for action in actions {
            switch action {
            case .send(let outgoing):
                self.send(outgoing)
            case .requestAuth(let request):
                self.requestAuth(request)
            case .sendKept(let packet, let completion):
                self.send(packet, completion: completion)
                if let name = packet.eventName {
                    self.reportOutgoing(
                        self.outgoingListeners, event: name, items: SocketValueConversion.items(from: packet.arguments))
                }
            case .discardKept(let completions):
                // As an emit while not connected: its completion, and upstream's error.
                for completion in completions {
                    completion?()
                    self.handleClientEvent(.error, data: ["Tried emitting when not connected"])
                }
            case .connected:
                let payload: [String: Any]? =
                    switch received {
                    case .upstream(let packet)? where packet.type == .connect:
                        packet.data.first as? [String: Any]
                    case .network(let packet)? where packet.type == .connect:
                        packet.data.map { SocketValueConversion.any(from: $0) } as? [String: Any]
                    default:
                        nil
                    }
                self.didConnect(toNamespace: self.nsp, payload: payload)
            case .deliverEvent(let event):
                if case .upstream(let packet)? = received {
                    // The received event itself, as given; an event kept while connecting
                    // (delivered with the CONNECT) back in the public shape.
                    let event = packet.type.isEvent ? packet : SocketIOClient.publicPacket(from: event)
                    self.handleEvent(event.event, data: event.args, isInternalMessage: false, withAck: event.id)
                } else {
                    self.deliverNetworkEvent(event)
                }
            case .ackResolved(let pending, let ack):
                // Resolved where it arrived; reached here only behind work that needed
                // `handleQueue`, where a callback runs.
                self.settle(pending, with: ack)
            case .deliverAck(let ack):
                if case .upstream(let packet)? = received {
                    let ack = ack.data == nil ? packet : SocketIOClient.publicPacket(from: ack)
                    self.handleAck(ack.id, data: ack.data)
                } else {
                    self.deliverNetworkAck(ack)
                }
            case .connectError(let message, _):
                self.changeStatus { $0.session.connection.connectRefused() }
                if received?.isConnectError != true {
                    // A CONNECT acknowledgement the machine refused (no sid): say why.
                    self.handleClientEvent(.error, data: [message])
                }
            case .reconnecting:
                self.retryConnectionLost()
                self.setReconnecting(reason: reason)
            case .disconnected(let why):
                switch why {
                case .serverDisconnect: self.didDisconnect(reason: "Got Disconnect")
                case .clientDisconnect: self.didDisconnect(reason: "Namespace leave")
                case .transportClose: self.didDisconnect(reason: reason)
                case .tooManyPacketsBeforeConnect: self.didDisconnect(reason: "Too many packets before connect")
                }
            }
        }
    }

    // MARK: Sending

    /// Sends one packet the socket built (CONNECT, DISCONNECT, an emit with the msgpack
    /// parser) in the manager's parser's encoding (as of the socket's last join): socket.io-parser text plus attachments, or
    /// one socket.io-msgpack-parser binary message.
    func send(_ packet: SocketIOProtocol.SocketPacket, completion: (() -> Void)? = nil) {
        guard let engine = self.manager?.engine else { return }
        guard self.state.withLock({ $0.parser }) == .msgpack else {
            let encoded = SocketPacketEncoder.encode(packet)
            engine.send(encoded.text, withData: encoded.attachments.map { Data($0) }, completion: completion)
            return
        }
        let bytes: [UInt8]
        do {
            bytes = try SocketMessagePackEncoder.encode(packet)
        } catch {
            DefaultSocketLogger.Logger.error("\(error): packet not sent", type: logType)
            completion?()
            return
        }
        DefaultSocketLogger.Logger.log("Emitting msgpack packet type \(packet.type.rawValue), \(bytes.count) bytes", type: logType)
        engine.sendBinaryMessage(bytes, completion: completion)
    }

    // MARK: Packet conversion

    /// The protocol layer's packet for an emit: kept by the machine while connecting, or sent
    /// by the msgpack parser (the JSON parser sends upstream's `SocketPacket`). A negative
    /// `ackID` (upstream's "no ack") is none.
    static func protocolPacket(isAck: Bool, namespace: String, ackID: Int?, data: [Any]) -> SocketIOProtocol.SocketPacket {
        SocketIOProtocol.SocketPacket(
            type: isAck ? .ack : .event, namespace: namespace, ackID: ackID.flatMap { $0 >= 0 ? $0 : nil },
            data: .array(data.map { SocketValueConversion.jsonValue(from: $0) }))
    }

    /// The protocol layer's view of `packet` for the machine.
    ///
    /// An event's payload is always converted: the machine reads the recovery offset from its
    /// last argument (so a packet given to the open `handlePacket(_:)`, a subclass's path,
    /// keeps the session's offset as the direct path does) and keeps it while connecting.
    ///
    /// - Parameter full: convert an ack's payload too (needed while connecting, when the
    ///   machine keeps it); otherwise only its header, and the received packet itself is
    ///   delivered.
    static func protocolPacket(of packet: SocketPacket, full: Bool) -> SocketIOProtocol.SocketPacket {
        let data: JSONValue? =
            switch packet.type {
            case .connect, .error: packet.data.first.map { SocketValueConversion.jsonValue(from: $0) }
            case .disconnect: nil
            case .event, .binaryEvent: .array(packet.data.map { SocketValueConversion.jsonValue(from: $0) })
            case .ack, .binaryAck:
                full ? .array(packet.data.map { SocketValueConversion.jsonValue(from: $0) }) : nil
            }
        return SocketIOProtocol.SocketPacket(
            type: packet.protocolType, namespace: packet.nsp,
            ackID: packet.id >= 0 ? packet.id : nil, data: data)
    }

    /// An event or ack the machine kept while connecting, back in the public shape.
    static func publicPacket(from packet: SocketIOProtocol.SocketPacket) -> SocketPacket {
        let type = SocketPacket.publicType(packet.type)
        let data: [Any] =
            if case .array(let elements)? = packet.data {
                SocketValueConversion.items(from: elements)
            } else {
                []
            }
        return SocketPacket(type: type, data: data, id: packet.ackID ?? -1, nsp: packet.namespace)
    }
}
