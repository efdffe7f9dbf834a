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

    public var description: String {
        switch self {
        case .connected: return "connected"
        case .connecting: return "connecting"
        case .disconnected: return "disconnected"
        case .notConnected: return "notConnected"
        }
    }
}
