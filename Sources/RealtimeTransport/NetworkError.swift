/// Every failure of the I/O layer.
package struct NetworkError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case invalidAddress
        case nameResolutionFailed
        case connectionRefused
        case connectTimedOut
        case connectionReset
        case closed
        case tlsHandshakeFailed
        case certificateUntrusted
        case certificateExpired
        case hostnameMismatch
        case concurrentOperation
        case cancelled
        case systemError
    }

    package var kind: Kind
    /// Human-readable detail (never contains payload bytes or credentials).
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
