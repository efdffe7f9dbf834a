public import Foundation

/// A class that represents an emit that will request an ack that has not yet been sent.
/// Call `timingOut(after:callback:)` to complete the emit
///
/// ```swift
/// socket.emitWithAck("myEvent").timingOut(after: 1) {data in
///     ...
/// }
/// ```
public final class OnAckCallback: NSObject {
    private let ackNumber: Int
    private let binary: Bool
    private let items: [Any]

    private weak var socket: SocketIOClient?

    init(ackNumber: Int, items: [Any], socket: SocketIOClient, binary: Bool = true) {
        self.ackNumber = ackNumber
        self.items = items
        self.socket = socket
        self.binary = binary
    }

    // MARK: Methods

    /// Completes an emitWithAck. If this isn't called, the emit never happens.
    ///
    /// - parameter seconds: The number of seconds before this emit times out if an ack hasn't been received.
    ///                      Pass 0 to never time out.
    /// - parameter callback: The callback called when an ack is received, or when a timeout happens.
    ///                       To check for timeout, use `SocketAckStatus`'s `noAck` case (`["NO ACK"]`).
    ///
    /// - Important: The callback runs on the manager's `handleQueue`.
    public func timingOut(after seconds: Double, callback: @escaping AckCallback) {
        guard let socket = self.socket, ackNumber != -1 else { return }

        socket.addAck(ackNumber, callback: callback)
        socket.emit(items, ack: ackNumber, binary: binary)

        guard seconds > 0, let queue = socket.manager?.handleQueue else { return }

        let ackNumber = self.ackNumber
        queue.asyncAfter(deadline: DispatchTime.now() + seconds) { [weak socket] in
            socket?.timeoutAck(ackNumber)
        }
    }
}
