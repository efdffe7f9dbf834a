/// Close status codes (RFC 6455 §7.4) and the rule for which ones may appear on the wire.
package enum WebSocketCloseCode {
    package static let normalClosure: UInt16 = 1000
    package static let goingAway: UInt16 = 1001
    package static let protocolError: UInt16 = 1002
    package static let unsupportedData: UInt16 = 1003
    /// Reserved: "no status code was present". Never sent in a frame.
    package static let noStatusReceived: UInt16 = 1005
    /// Reserved: "closed without a close frame". Never sent in a frame.
    package static let abnormalClosure: UInt16 = 1006
    package static let invalidFramePayloadData: UInt16 = 1007
    package static let policyViolation: UInt16 = 1008
    package static let messageTooBig: UInt16 = 1009
    package static let mandatoryExtension: UInt16 = 1010
    package static let internalServerError: UInt16 = 1011

    /// Whether `code` may be carried by a close frame (RFC 6455 §7.4.1–§7.4.2, plus the
    /// IANA-registered 1012–1014): 1000–1003, 1007–1014 and the 3000–4999 application range.
    package static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
