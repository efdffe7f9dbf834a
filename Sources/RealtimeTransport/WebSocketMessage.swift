/// A complete WebSocket data message.
package enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])
}
