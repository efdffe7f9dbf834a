/// Bounds that keep ``HTTPResponseParser``'s memory small whatever the peer sends.
package struct HTTPParserLimits: Sendable, Hashable {
    /// Bytes of one response head (status line plus header lines), and separately of the
    /// trailer section of a chunked body. Default 64 KiB.
    package var maxHeaderBytes: Int
    /// Header fields in one head (and trailer fields in one trailer section). Default 256.
    package var maxHeaderCount: Int
    /// Bytes of one chunk-size line including extensions (RFC 9112 §7.1). Default 4 KiB.
    package var maxChunkSizeLineBytes: Int
    /// Interim (1xx other than 101) responses skipped before one final response. Default 16.
    package var maxInformationalResponses: Int

    package init(
        maxHeaderBytes: Int = 64 * 1024,
        maxHeaderCount: Int = 256,
        maxChunkSizeLineBytes: Int = 4 * 1024,
        maxInformationalResponses: Int = 16
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxChunkSizeLineBytes = maxChunkSizeLineBytes
        self.maxInformationalResponses = maxInformationalResponses
    }
}
