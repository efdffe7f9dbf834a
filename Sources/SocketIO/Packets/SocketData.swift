public import Foundation

/// A marking protocol that says a type can be represented in a socket.io packet.
///
/// Source-compatible with socket.io-client-swift 16.x.
///
/// ```swift
/// struct CustomData: SocketData {
///    let name: String
///    let age: Int
///
///    func socketRepresentation() -> SocketData {
///        return ["name": name, "age": age]
///    }
/// }
///
/// socket.emit("myEvent", CustomData(name: "Erik", age: 24))
/// ```
public protocol SocketData {
    // MARK: Methods

    /// A representation of self that can sent over socket.io.
    ///
    /// - Throws: Whatever the conforming type throws when it cannot be represented; `emit`
    ///   then reports `[eventName, items, error]` through `SocketClientEvent.error`.
    func socketRepresentation() throws -> SocketData
}

extension SocketData {
    /// Default implementation. Only works for native Swift types and a few Foundation types.
    public func socketRepresentation() -> SocketData {
        return self
    }
}

extension Array: SocketData {}
extension Bool: SocketData {}
extension Dictionary: SocketData {}
extension Double: SocketData {}
extension Int: SocketData {}
extension NSArray: SocketData {}
extension Data: SocketData {}
extension NSData: SocketData {}
extension NSDictionary: SocketData {}
extension NSString: SocketData {}
extension NSNull: SocketData {}
extension String: SocketData {}

/// A typealias for an ack callback.
public typealias AckCallback = ([Any]) -> Void

/// A typealias for a normal callback.
public typealias NormalCallback = ([Any], SocketAckEmitter) -> Void

/// A typealias for a queued POST.
public typealias Post = (msg: String, completion: (() -> Void)?)
