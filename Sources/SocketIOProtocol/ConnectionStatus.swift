/// The status a socket or a manager reports: socket.io-client-swift's `SocketIOStatus`, kept
/// by the machine that owns it (``NamespaceStateMachine/status``,
/// ``ReconnectStateMachine/status``) and changed only by that machine's inputs.
package enum ConnectionStatus: Sendable, Hashable {
    /// Never connected (or never asked to).
    case notConnected
    /// Connected once (or asked to), not any more.
    case disconnected
    /// Connecting, or waiting to reconnect.
    case connecting
    /// Connected.
    case connected
}
