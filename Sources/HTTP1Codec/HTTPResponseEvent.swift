/// What ``HTTPResponseParser`` produces, in order: one `.head`, zero or more `.body`
/// chunks, one `.end` per response (a `101 Switching Protocols` head has no `.body`/`.end`).
package enum HTTPResponseEvent: Sendable, Hashable {
    /// The final (non-1xx, or 101) response head.
    case head(HTTPResponseHead)
    /// A piece of the body as it arrived; never empty. Chunked framing is already removed.
    case body([UInt8])
    /// The response is complete.
    case end
}
