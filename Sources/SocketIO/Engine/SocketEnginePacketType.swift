/// Represents the type of engine.io packet types.
public enum SocketEnginePacketType: Int, Sendable {
    /// Open message.
    case open

    /// Close message.
    case close

    /// Ping message.
    case ping

    /// Pong message.
    case pong

    /// Regular message.
    case message

    /// Upgrade message.
    case upgrade

    /// NOOP.
    case noop
}
