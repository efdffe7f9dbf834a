import SocketIOProtocol

/// The state of a socket or manager, as in socket.io-client-swift.
public enum SocketIOStatus: Int, CustomStringConvertible, Sendable {
    /// The client/manager has never been connected, or the client has been reset.
    case notConnected
    /// The client/manager was once connected, but not anymore.
    case disconnected
    /// The client/manager is in the process of connecting.
    case connecting
    /// The client/manager is currently connected.
    case connected

    /// `true` when connecting or connected.
    public var active: Bool { self == .connected || self == .connecting }

    /// The case's name: `connected`, `connecting`, `disconnected` or `notConnected`.
    public var description: String {
        switch self {
        case .connected: return "connected"
        case .connecting: return "connecting"
        case .disconnected: return "disconnected"
        case .notConnected: return "notConnected"
        }
    }
}

extension SocketIOStatus {
    /// The public value of a machine's status (`NamespaceStateMachine`, `ReconnectStateMachine`).
    init(_ status: ConnectionStatus) {
        switch status {
        case .notConnected: self = .notConnected
        case .disconnected: self = .disconnected
        case .connecting: self = .connecting
        case .connected: self = .connected
        }
    }

    /// The machine's value of this status.
    var connectionStatus: ConnectionStatus {
        switch self {
        case .notConnected: .notConnected
        case .disconnected: .disconnected
        case .connecting: .connecting
        case .connected: .connected
        }
    }
}
