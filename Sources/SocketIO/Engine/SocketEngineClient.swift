public import Foundation

/// Declares that a type will be a delegate to an engine.
///
/// Upstream marks this protocol `@objc`; Objective-C interop does not exist on Linux, so it is
/// a plain class-bound protocol here.
public protocol SocketEngineClient: AnyObject {
    // MARK: Methods

    /// Called when the engine errors.
    ///
    /// - parameter reason: The reason the engine errored.
    func engineDidError(reason: String)

    /// Called when the engine closes.
    ///
    /// - parameter reason: The reason that the engine closed.
    func engineDidClose(reason: String)

    /// Called when the engine opens.
    ///
    /// - parameter reason: The reason the engine opened.
    func engineDidOpen(reason: String)

    /// Called when the engine receives a ping message. Only called in socket.io >3.
    func engineDidReceivePing()

    /// Called when the engine receives a pong message. Only called in socket.io 2.
    func engineDidReceivePong()

    /// Called when the engine sends a ping to the server. Only called in socket.io 2.
    func engineDidSendPing()

    /// Called when the engine sends a pong to the server. Only called in socket.io >3.
    func engineDidSendPong()

    /// Called when the engine has a message that must be parsed.
    ///
    /// - parameter msg: The message that needs parsing.
    func parseEngineMessage(_ msg: String)

    /// Called when the engine receives binary data.
    ///
    /// - parameter data: The data the engine received.
    func parseEngineBinaryData(_ data: Data)

    /// Called when when upgrading the http connection to a websocket connection.
    ///
    /// - parameter headers: The http headers.
    func engineDidWebsocketUpgrade(headers: [String: String])
}
