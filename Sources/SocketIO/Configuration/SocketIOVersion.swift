import SocketIOProtocol

/// The socket.io version being used.
public enum SocketIOVersion: Int, Sendable {
    /// socket.io 2, engine.io 3
    case two = 2

    /// socket.io 3, engine.io 4
    case three = 3
}

extension SocketIOVersion {
    /// The Socket.IO protocol revision this version speaks: socket.io-protocol v4 for 2.x
    /// servers, v5 otherwise. The one mapping from the option to the protocol layer.
    var protocolRevision: SocketProtocolRevision {
        self == .two ? .v4 : .v5
    }
}
