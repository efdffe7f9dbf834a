/// The socket.io version being used.
public enum SocketIOVersion: Int, Sendable {
    /// socket.io 2, engine.io 3
    case two = 2

    /// socket.io 3, engine.io 4
    case three = 3
}
