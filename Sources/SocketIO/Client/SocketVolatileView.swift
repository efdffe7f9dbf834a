/// Emits that are dropped instead of kept when the socket is not connected: socket.io-client's
/// `socket.volatile.emit`, for values that are stale by the time a connection is back
/// (positions, typing indicators).
///
/// ```swift
/// socket.volatile.emit("cursor", ["x": 10, "y": 20])
/// ```
///
/// Connected, a volatile emit goes out like any other. Not connected, it is dropped silently
/// (no `"Tried emitting when not connected"` error, and never kept by `.sendBuffer`).
public struct SocketVolatileView: Sendable {
    private let socket: SocketIOClient

    init(socket: SocketIOClient) {
        self.socket = socket
    }

    /// Sends `event` with `items` if the socket is connected; drops it otherwise.
    ///
    /// - Parameters:
    ///   - event: The event to send.
    ///   - items: Its arguments.
    /// - Returns: `true` when it was sent, `false` when dropped (or not representable, which
    ///   is reported to the `.error` handlers as by `emit`).
    @discardableResult
    public func emit(_ event: String, _ items: SocketData...) -> Bool {
        self.emit(event, with: items)
    }

    /// The array form of ``emit(_:_:)``.
    @discardableResult
    public func emit(_ event: String, with items: [SocketData]) -> Bool {
        do {
            return self.socket.emit(try SocketIOClient.eventData(event, items), volatile: true)
        } catch {
            self.socket.handleClientEvent(.error, data: [event, items, error])
            return false
        }
    }
}

extension SocketIOClient {
    /// The status and whether an emit now is kept, not refused (the socket connects or
    /// reconnects with a `.sendBuffer`), read in one section: what an async emit checks before
    /// it decides to wait for the connection.
    package var emitReadiness: (status: SocketIOStatus, keepsEmits: Bool) {
        self.state.withLock { (SocketIOStatus($0.session.connection.status), Self.keepsEmits($0)) }
    }

    static func keepsEmits(_ state: State) -> Bool {
        state.session.connection.keepsEmits || (state.retryQueue != nil && state.session.connection.status == .connecting)
    }

    /// Emits dropped while not connected (socket.io-client's `socket.volatile`); see
    /// ``SocketVolatileView``.
    public var volatile: SocketVolatileView {
        SocketVolatileView(socket: self)
    }
}
