import CommandLineSupport
import EngineIOProtocol
import SocketIOConcurrency

/// A socket that prints every event the server sends as a JSON line, before its handlers run.
///
/// `onAny` would also see the client's own lifecycle events (`connect`, `statusChange`,
/// `ping`, ...), indistinguishable from server events of the same names; socket.io-client-swift's
/// open `handleEvent(_:data:isInternalMessage:withAck:)` tells them apart, and the manager
/// uses this socket once it is in `SocketManager.nsps` for its namespace.
final class EventPrintingSocket: SocketIOClient, @unchecked Sendable {
    // @unchecked: SocketIOClient is thread-safe (its own lock); this adds one immutable Sendable `let`.
    private let console: Console

    init(manager: SocketManagerSpec, nsp: String, console: Console) {
        self.console = console
        super.init(manager: manager, nsp: nsp)
    }

    /// Called on the manager's (serial) handle queue, so lines come out in the order received.
    override func handleEvent(_ event: String, data: [Any], isInternalMessage: Bool, withAck ack: Int = -1) {
        // As the base class: a network event counts only while connected.
        if !isInternalMessage && self.status == .connected {
            self.console.output(OutputLine.socketEvent(event, arguments: data.map { JSONValue(socketItem: $0) }))
        }
        super.handleEvent(event, data: data, isInternalMessage: isInternalMessage, withAck: ack)
    }
}
