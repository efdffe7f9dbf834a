package import EngineIOProtocol

/// What waits for the acknowledgement of an emit: the value a socket's ack table holds under
/// the emit's ack id (``NamespaceSessionMachine``).
///
/// Concrete, not a parameter of the machine: a generic `package` type's members are not
/// specialized in another module (Swift 6.3), and the machine runs for every packet.
package enum PendingAck {
    /// socket.io-client-swift's callback, called on the manager's `handleQueue` with upstream's
    /// items (`["NO ACK"]` on a timeout).
    case callback(([Any]) -> Void)
    /// An awaiting operation (SocketIOConcurrency's `emitWithAck`), called once, on whichever
    /// thread settles it, with how the wait ended.
    case waiter((AckWaiterOutcome) -> Void)
    /// A try of the retry queue's emit `sequence` (`.retries`).
    case queued(Int)

    /// Whether an awaiting operation waits for it (``waiter(_:)``): what holds a stream's
    /// reading backpressure off (``InboundBacklog``).
    package var isAwaited: Bool {
        if case .waiter = self { return true }
        return false
    }

    /// The retry queue's sequence, for a try.
    package var queuedSequence: Int? {
        if case .queued(let sequence) = self { return sequence }
        return nil
    }
}

/// The items of an ack, in the form they arrived in.
package enum AckItems {
    /// From the network: as the protocol layer decoded them (binary attachments in place).
    case values([JSONValue])
    /// From a caller of socket.io-client-swift's public `handleAck(_:data:)`.
    case items([Any])
}

/// How an awaited ack ends.
package enum AckWaiterOutcome {
    /// The server acknowledged with these items.
    case ack(AckItems)
    /// The deadline passed first.
    case timedOut
    /// The socket disconnected first (upstream's reason string).
    case disconnected(reason: String)
}
