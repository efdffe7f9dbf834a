/// How a manager encodes Socket.IO packets on the wire: the `.parser` option.
///
/// The server must use the same parser. socket.io's default is ``json``; a server started with
/// `socket.io-msgpack-parser` (Node) or `serializer='msgpack'` (python-socketio) needs
/// ``msgpack``.
///
/// ```swift
/// let manager = SocketManager(socketURL: url, config: [.parser(.msgpack)])
/// ```
public struct SocketParser: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case json
        case msgpack
    }

    let kind: Kind

    /// socket.io-parser (the default): a packet is text (`2["event",…]`), binary data travels as
    /// separate attachments after it.
    public static let json = SocketParser(kind: .json)

    /// socket.io-msgpack-parser: each packet is one MessagePack map `{type, nsp, data, id}` in
    /// one binary Engine.IO message, binary data inline; no attachments. Socket.IO 3 / 4
    /// servers only: with `.version(.two)` a socket's `connect` is refused with `.error`
    /// ``versionTwoRefusal`` and the socket stays disconnected.
    public static let msgpack = SocketParser(kind: .msgpack)

    /// The `.error` item a `connect` reports when `.parser(.msgpack)` is combined with
    /// `.version(.two)` (socket.io 2.x's msgpack parser is not implemented).
    public static let versionTwoRefusal = "The msgpack parser needs a Socket.IO 3 or 4 server (.version(.three))"

    /// `json` or `msgpack`.
    public var description: String {
        switch self.kind {
        case .json: "json"
        case .msgpack: "msgpack"
        }
    }
}
