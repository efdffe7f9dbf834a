public import Foundation

/// Class that gives a backwards compatible way to cause an emit not to recursively check for Data objects.
///
/// Usage:
///
/// ```swift
/// socket.rawEmitView.emit("myEvent", myObject)
/// ```
public final class SocketRawView: NSObject, @unchecked Sendable {
    // `@unchecked Sendable`: only an immutable reference to the thread-safe socket.
    private unowned let socket: SocketIOClient

    init(socket: SocketIOClient) {
        self.socket = socket
    }

    /// Send an event to the server, with optional data items.
    ///
    /// If an error occurs trying to transform `items` into their socket representation, a `SocketClientEvent.error`
    /// will be emitted. The structure of the error data is `[eventName, items, theError]`
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. May be left out.
    public func emit(_ event: String, _ items: SocketData...) {
        do {
            try emit(event, with: items.map({ try $0.socketRepresentation() }))
        } catch {
            DefaultSocketLogger.Logger.error(
                "Error creating socketRepresentation for emit: \(event)",
                type: "SocketIOClient")

            socket.handleClientEvent(.error, data: [event, items, error])
        }
    }

    /// Same as emit, but meant for Objective-C
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. Send an empty array to send no data.
    public func emit(_ event: String, with items: [Any]) {
        socket.emit([event] + items, binary: false)
    }

    /// Sends a message to the server, requesting an ack.
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. May be left out.
    /// - returns: An `OnAckCallback`. You must call the `timingOut(after:)` method before the event will be sent.
    public func emitWithAck(_ event: String, _ items: SocketData...) -> OnAckCallback {
        do {
            return emitWithAck(event, with: try items.map({ try $0.socketRepresentation() }))
        } catch {
            DefaultSocketLogger.Logger.error(
                "Error creating socketRepresentation for emit: \(event)",
                type: "SocketIOClient")

            socket.handleClientEvent(.error, data: [event, items, error])

            return OnAckCallback(items: [], socket: socket, sendable: false)
        }
    }

    /// Same as emitWithAck, but for Objective-C
    ///
    /// - parameter event: The event to send.
    /// - parameter items: The items to send with this event. Use `[]` to send nothing.
    /// - returns: An `OnAckCallback`. You must call the `timingOut(after:)` method before the event will be sent.
    public func emitWithAck(_ event: String, with items: [Any]) -> OnAckCallback {
        return socket.createOnAck([event] + items, binary: false)
    }
}

/// Class that gives a backwards compatible way to cause an emit not to recursively check for Data objects.
///
/// Usage:
///
/// ```swift
/// ack.rawEmitView.with(myObject)
/// ```
public final class SocketRawAckView: NSObject, @unchecked Sendable {
    // `@unchecked Sendable`: only immutable `let`s; the socket itself is thread-safe.
    private unowned let socket: SocketIOClient
    private let ackNum: Int

    init(socket: SocketIOClient, ackNum: Int) {
        self.socket = socket
        self.ackNum = ackNum
    }

    /// Call to ack receiving this event.
    ///
    /// If an error occurs trying to transform `items` into their socket representation, a `SocketClientEvent.error`
    /// will be emitted. The structure of the error data is `[ackNum, items, theError]`
    ///
    /// - parameter items: A variable number of items to send when acking.
    public func with(_ items: SocketData...) {
        guard ackNum != -1 else { return }

        do {
            socket.emit(try items.map({ try $0.socketRepresentation() }), ack: ackNum, binary: false, isAck: true)
        } catch {
            socket.handleClientEvent(.error, data: [ackNum, items, error])
        }
    }

    /// Call to ack receiving this event.
    ///
    /// - parameter items: An array of items to send when acking. Use `[]` to send nothing.
    public func with(_ items: [Any]) {
        guard ackNum != -1 else { return }

        socket.emit(items, ack: ackNum, binary: false, isAck: true)
    }
}
