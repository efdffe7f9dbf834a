/// One WebSocket frame with its payload already unmasked (RFC 6455 §5.2).
package struct WebSocketFrame: Sendable, Hashable {
    /// Last fragment of a message.
    package var fin: Bool
    /// RSV1: set on the first frame of a compressed message with permessage-deflate (RFC 7692 §6).
    package var rsv1: Bool
    package var rsv2: Bool
    package var rsv3: Bool
    package var opcode: WebSocketOpcode
    /// Application (or extension) data, unmasked.
    package var payload: [UInt8]

    package init(
        fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
        opcode: WebSocketOpcode, payload: [UInt8]
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.payload = payload
    }
}
