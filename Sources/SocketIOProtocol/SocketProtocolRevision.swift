package import EngineIOProtocol

/// The Socket.IO protocol revision (socket.io-protocol v5, "History").
///
/// - ``v5``: Socket.IO 3 and later, over Engine.IO v4 (`EIO=4`). CONNECT is required for every
///   namespace, may carry an auth payload, and is acknowledged with `{"sid":…}`.
/// - ``v4``: Socket.IO 1.x/2.x, over Engine.IO v3 (`EIO=3`). The main namespace is joined
///   implicitly and CONNECT carries no payload; CONNECT_ERROR was named ERROR.
package enum SocketProtocolRevision: Int, Sendable, Hashable {
    case v4 = 4
    case v5 = 5

    /// The Engine.IO revision this Socket.IO revision runs on.
    package var engineVersion: EngineProtocolVersion {
        switch self {
        case .v4: return .v3
        case .v5: return .v4
        }
    }
}
