public import Foundation

/// A class that represents a waiting ack call.
///
/// **NOTE**: You should not store this beyond the life of the event handler.
public final class SocketAckEmitter: NSObject, @unchecked Sendable {
    // `@unchecked Sendable`: only immutable `let`s; the socket itself is thread-safe.
    private unowned let socket: SocketIOClient
    private let ackNum: Int

    /// A view into this emitter where emits do not check for binary data.
    ///
    /// ```swift
    /// ack.rawEmitView.with(myObject)
    /// ```
    ///
    /// **NOTE**: It is not safe to hold on to this view beyond the life of the socket.
    public var rawEmitView: SocketRawAckView {
        return SocketRawAckView(socket: socket, ackNum: ackNum)
    }

    // MARK: Properties

    /// If true, this handler is expecting to be acked. Call `with(_: SocketData...)` to ack.
    public var expected: Bool {
        return ackNum != -1
    }

    // MARK: Initializers

    /// Creates a new `SocketAckEmitter`.
    ///
    /// - parameter socket: The socket for this emitter.
    /// - parameter ackNum: The ack number for this emitter.
    public init(socket: SocketIOClient, ackNum: Int) {
        self.socket = socket
        self.ackNum = ackNum
    }

    // MARK: Methods

    /// Call to ack receiving this event.
    ///
    /// If an error occurs trying to transform `items` into their socket representation, a `SocketClientEvent.error`
    /// will be emitted. The structure of the error data is `[ackNum, items, theError]`
    ///
    /// - parameter items: A variable number of items to send when acking.
    public func with(_ items: SocketData...) {
        guard ackNum != -1 else { return }

        do {
            socket.emitAck(ackNum, with: try items.map({ try $0.socketRepresentation() }))
        } catch {
            socket.handleClientEvent(.error, data: [ackNum, items, error])
        }
    }

    /// Call to ack receiving this event.
    ///
    /// - parameter items: An array of items to send when acking. Use `[]` to send nothing.
    public func with(_ items: [Any]) {
        guard ackNum != -1 else { return }

        socket.emitAck(ackNum, with: items)
    }
}
