package import EngineIOProtocol

/// Why ``SocketEngine/send(_:withType:withData:completion:)`` refused a write; nothing of it
/// was sent.
///
/// `write(_:withType:withData:completion:)` (upstream's entry) turns these into its own
/// outcomes: the completion runs at once, and ``packetTooLarge(length:limit:)`` and
/// ``bufferFull(_:)`` reach the client as `engineDidError` with ``description``.
package enum SocketEngineWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The engine is not connected (no session, or it closed).
    case notConnected
    /// A packet is longer than the handshake's `maxPayload` as the current transport encodes
    /// it (the server would drop the session over it).
    case packetTooLarge(length: Int, limit: Int)
    /// The engine's outbound buffer for the current transport has no room for the write
    /// (``EngineBufferOverflow``: the write buffer while polling, before the handshake and
    /// in the upgrade window; the WebSocket's send queue behind a write in progress).
    case bufferFull(EngineBufferOverflow)

    package var description: String {
        switch self {
        case .notConnected:
            return "Tried writing while not connected"
        case .packetTooLarge(let length, let limit):
            return "Packet of \(length) bytes exceeds the server's maxPayload of \(limit) bytes: not sent"
        case .bufferFull(let overflow):
            return "Not sent: \(overflow)"
        }
    }
}
