import EngineIOProtocol
import Foundation
import RealtimeSync
import SocketIOProtocol

/// The network half of the socket's packet path: a packet the manager's `SocketPacketReader`
/// decoded (binary attachments in place, as `JSONValue`) goes through the namespace machine on
/// the thread that read it; what needs no `[Any]` handler is done there, the rest on
/// `handleQueue`.
///
/// Done on the reading thread: settling an awaiting `emitWithAck` (`SocketIOConcurrency`),
/// yielding to a `for await` stream when no `[Any]` handler and no `onAny` handler wants the
/// event, sending a DISCONNECT the machine asks for. Everything from the first action that needs
/// `handleQueue` on (a handler, an ack callback, a status change, a client event) is returned as
/// one closure the manager runs on `handleQueue`, so the actions of a packet keep their order.
extension SocketIOClient {
    /// Runs the session machine for `packet` now and performs what it can on this thread.
    ///
    /// - Parameters:
    ///   - direct: `false` when the manager still has earlier network work queued on
    ///     `handleQueue`: then nothing is done on this thread, so nothing overtakes that work.
    ///   - step: the session machine's actions for `packet` and where its event goes, when the
    ///     caller decided them already (``directStep(_:in:)``, in the core's critical section
    ///     that read it).
    /// - Returns: what is left to do, to be run on `handleQueue`; `nil` when nothing is.
    func receive(
        networkPacket packet: SocketIOProtocol.SocketPacket, direct: Bool, step given: DirectStep? = nil
    ) -> (@Sendable () -> Void)? {
        let throughOpenMethods = self.deliversThroughOpenMethods
        let actions =
            given?.actions
            ?? self.state.withLock { self.sessionStep(packet, resolvingAcks: direct && !throughOpenMethods, in: &$0) }
        if throughOpenMethods {
            let actions = UncheckedSendable(actions)
            return { [self] in self.deliverThroughOpenMethods(packet, actions: actions.value) }
        }
        var index = actions.startIndex
        // An ack callback resolved here (so the table is looked up once), called on `handleQueue`.
        var resolvedCallback: (AckCallback, [JSONValue])?
        if direct {
            reading: while index < actions.endIndex {
                let decided = index == actions.startIndex ? given?.firstEventDelivery : nil
                switch self.performOnReadingThread(actions[index], decided: decided) {
                case .done:
                    index += 1
                case .handleQueue:
                    break reading
                case .ackCallback(let callback, let arguments):
                    resolvedCallback = (callback, arguments)
                    index += 1
                    break reading
                }
            }
        }
        guard index < actions.endIndex || resolvedCallback != nil || packet.type == .connectError else { return nil }
        // An ack's callback (and a resolved ack among the rest) is upstream's closure, which is
        // not `Sendable`; it is called on `handleQueue` as upstream calls it.
        let rest = UncheckedSendable(actions[index...])
        let callback = UncheckedSendable(resolvedCallback)
        return { [self] in
            if let (ackCallback, arguments) = callback.value {
                DefaultSocketLogger.Logger.log("Handling ack: \(packet.ackID ?? -1)", type: self.logType)
                ackCallback(SocketValueConversion.items(from: arguments))
            }
            self.perform(rest.value, reason: "Got Disconnect", receiving: .network(packet))
            if packet.type == .connectError {
                // Reported even when unsolicited, as upstream does.
                let version = self.manager?.version ?? .three
                let items = (try? SocketPacket.items(of: packet, version: version)) ?? []
                self.handleEvent("error", data: items, isInternalMessage: true, withAck: packet.ackID ?? -1)
            }
        }
    }

    /// Delivers a network packet of a subclass (``deliversThroughOpenMethods``) on `handleQueue`
    /// through its open `handlePacket(_:)`, in upstream's shape, as upstream's manager does:
    /// the base implementation performs `actions` (the machine's, for this packet, from the
    /// same path every socket's packets take) instead of running the machine again, so the
    /// overrides of `handleEvent` and `handleAck` see the events and acks, and the session's
    /// state is the class's own. An override that does not call `super` handles the packet
    /// itself: nothing of it is performed, as upstream.
    func deliverThroughOpenMethods(_ packet: SocketIOProtocol.SocketPacket, actions: [SessionAction]) {
        let version = self.manager?.version ?? .three
        guard let upstream = try? SocketPacket.upstream(packet, version: version) else {
            self.perform(actions, reason: "Got Disconnect", receiving: .network(packet))
            return
        }
        self.state.withLock { $0.networkDelivery = actions }
        self.handlePacket(upstream)
        self.state.withLock { $0.networkDelivery = nil }
    }

    /// The session machine's actions for a packet the core read, and who gets its event, both
    /// decided in the core's one critical section for the packet
    /// (``SocketManager/receiveFromEngine(_:)``).
    struct DirectStep {
        var actions: [SessionAction]
        /// Where the first action's event goes, when the first action delivers an event.
        var firstEventDelivery: EventDelivery?
    }

    /// Runs the session machine for `packet` in the caller's critical section (the core's that
    /// read it) and decides where its first event goes; an ACK is resolved in the same step
    /// unless the socket delivers through its open methods.
    func directStep(_ packet: SocketIOProtocol.SocketPacket, in state: inout State) -> DirectStep {
        let actions = self.sessionStep(packet, resolvingAcks: !self.deliversThroughOpenMethods, in: &state)
        guard case .deliverEvent(let event)? = actions.first else { return DirectStep(actions: actions) }
        return DirectStep(actions: actions, firstEventDelivery: Self.eventDelivery(event, in: state))
    }

    /// Runs the session machine for `packet` in the caller's critical section; an ACK read on
    /// the thread that performs it is resolved in the same step.
    func sessionStep(_ packet: SocketIOProtocol.SocketPacket, resolvingAcks: Bool, in state: inout State) -> [SessionAction] {
        state.session.receive(packet, resolvingAcks: resolvingAcks).actions
    }

    /// What ``performOnReadingThread(_:decided:)`` did.
    private enum ReadingThreadStep {
        /// The action is done.
        case done
        /// Nothing was done: the action (and the rest) runs on `handleQueue`.
        case handleQueue
        /// The ack's callback was resolved; it is called on `handleQueue`, before the rest.
        case ackCallback(AckCallback, [JSONValue])
    }

    /// Who gets a network event on the reading thread, decided in a critical section.
    enum EventDelivery {
        /// The socket is not connected: nothing.
        case drop
        /// An `[Any]` handler or `onAny` wants it: the event (and the rest) runs on `handleQueue`.
        case handleQueue
        /// Only value subscribers want it: they get the decoded values here.
        case values([(NetworkEventArguments) -> Void], endsWithRecoveryOffset: Bool)
    }

    /// Who gets `event`, from the socket's state in the caller's critical section.
    static func eventDelivery(_ event: SocketIOProtocol.SocketPacket, in state: State) -> EventDelivery {
        guard let name = event.eventName else { return .drop }
        guard state.session.connection.status == .connected else { return .drop }
        guard state.anyHandler == nil else { return .handleQueue }
        var subscribers: [(NetworkEventArguments) -> Void] = []
        for subscriber in state.incomingSubscribers {
            let values = subscriber.values
            subscribers.append { values(name, $0.values) }
        }
        for handler in state.handlers where handler.event == name {
            guard let values = handler.values else { return .handleQueue }
            subscribers.append(values)
        }
        return .values(subscribers, endsWithRecoveryOffset: Self.endsWithRecoveryOffset(event, in: state))
    }

    /// Performs `action` on the reading thread when it needs neither `handleQueue` nor `[Any]`.
    ///
    /// - Parameter decided: where an event goes, when the critical section that ran the
    ///   machine decided it already.
    private func performOnReadingThread(_ action: SessionAction, decided: EventDelivery?) -> ReadingThreadStep {
        switch action {
        case .send(let outgoing):
            self.send(outgoing)
            return .done
        case .ackResolved(let pending, let ack):
            if case .callback(let callback) = pending {
                return .ackCallback(callback, ack.arguments)
            }
            self.settle(pending, with: ack)
            return .done
        case .deliverEvent(let event):
            switch decided ?? self.state.withLock({ Self.eventDelivery(event, in: $0) }) {
            case .drop:
                return .done
            case .handleQueue:
                return .handleQueue
            case .values(let subscribers, let endsWithRecoveryOffset):
                let arguments = NetworkEventArguments(values: event.arguments, endsWithRecoveryOffset: endsWithRecoveryOffset)
                for subscriber in subscribers {
                    subscriber(arguments)
                }
                return .done
            }
        case .deliverAck, .connected, .connectError, .reconnecting, .disconnected, .requestAuth, .sendKept, .discardKept:
            return .handleQueue
        }
    }

    /// Delivers a network EVENT on `handleQueue`, always through the open
    /// `handleEvent(_:data:isInternalMessage:withAck:)` (so a subclass's override sees every
    /// one): `onAny` and `[Any]` handlers get upstream's `[Any]` (converted once), and the
    /// base implementation hands `SocketIOConcurrency` subscribers the decoded values
    /// (``NetworkArguments``).
    func deliverNetworkEvent(_ event: SocketIOProtocol.SocketPacket) {
        guard let name = event.eventName else { return }
        let arguments = event.arguments
        let items = SocketValueConversion.items(from: arguments)
        self.state.withLock { $0.networkArguments = NetworkArguments(items: items, arguments: arguments) }
        self.handleEvent(name, data: items, isInternalMessage: false, withAck: event.ackID ?? -1)
    }

    /// Delivers a network ACK on `handleQueue`, always through the open `handleAck(_:data:)`
    /// (so a subclass's override sees every one): upstream's callbacks get the `[Any]`, a
    /// waiter still there the decoded values (``NetworkArguments``).
    func deliverNetworkAck(_ ack: SocketIOProtocol.SocketPacket) {
        let arguments = ack.arguments
        let items = SocketValueConversion.items(from: arguments)
        self.state.withLock { $0.networkArguments = NetworkArguments(items: items, arguments: arguments) }
        self.handleAck(ack.ackID ?? -1, data: items)
    }

    /// Registers a `SocketIOConcurrency` subscriber for `event`: network events reach `values`
    /// (on the reading thread when no `[Any]` handler for the event exists), the public
    /// `handleEvent(_:data:isInternalMessage:withAck:)` reaches `items`. It is one of
    /// ``handlers``, removed with ``off(id:)``.
    package func on(
        _ event: String, values: @escaping (NetworkEventArguments) -> Void,
        items: @escaping NormalCallback
    ) -> UUID {
        var handler = SocketEventHandler(event: event, id: UUID(), callback: items)
        handler.values = values
        self.state.withLock { $0.handlers.append(handler) }
        return handler.id
    }

    /// Whether the last of `items` (an event's, with `ack`) is a recovering server's offset
    /// (`NamespaceStateMachine.endsWithRecoveryOffset(asksForAck:lastArgumentIsString:)`), for a
    /// subscriber that got the event's `[Any]`.
    package func endsWithRecoveryOffset(_ items: [Any], ack: SocketAckEmitter) -> Bool {
        let lastIsString = items.last is String
        return self.state.withLock {
            $0.session.connection.endsWithRecoveryOffset(asksForAck: ack.expected, lastArgumentIsString: lastIsString)
        }
    }

    /// Whether `event`'s last argument is a recovering server's offset, in the caller's section.
    static func endsWithRecoveryOffset(_ event: SocketIOProtocol.SocketPacket, in state: State) -> Bool {
        Self.endsWithRecoveryOffset(event.arguments, asksForAck: event.ackID != nil, in: state)
    }

    /// Whether the last of an event's decoded `arguments` is a recovering server's offset, in
    /// the caller's section.
    static func endsWithRecoveryOffset(_ arguments: [JSONValue], asksForAck: Bool, in state: State) -> Bool {
        let lastIsString = if case .string? = arguments.last { true } else { false }
        return state.session.connection.endsWithRecoveryOffset(asksForAck: asksForAck, lastArgumentIsString: lastIsString)
    }
}
