import CRealtimeZlib

/// Decompresses incoming messages for permessage-deflate (RFC 7692 §7.2.2) with the system
/// zlib, bounded: output beyond the limit fails with close code 1009 instead of growing.
///
/// Feed each frame's payload with ``decompress(_:into:limit:)`` as it arrives, then call
/// ``finishMessage(into:limit:)``, which appends the `0x00 0x00 0xff 0xff` tail the sender
/// removed. With no context takeover the stream is reset after each message.
///
/// - Important: Not thread-safe. The owner (one connection's reader) confines it.
package final class PerMessageDeflateDecompressor: @unchecked Sendable {
    // @unchecked: the z_stream is mutated by every call; instances are confined by their
    // owner (one connection's reader state under its lock), never used concurrently.
    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool
    private var initialized = false
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// - Parameter noContextTakeover: the peer resets its context per message, so we may too.
    package init?(noContextTakeover: Bool) {
        self.stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        self.stream.initialize(to: z_stream())
        self.noContextTakeover = noContextTakeover
        // A 15-bit window inflates any stream made with a smaller one.
        guard crealtime_inflateInit2(self.stream, -15) == Z_OK else { return nil }
        self.initialized = true
    }

    deinit {
        if self.initialized { inflateEnd(self.stream) }
        self.stream.deinitialize(count: 1)
        self.stream.deallocate()
    }

    /// Inflates `input`, appending to `output`.
    /// - Throws: 1009 when `output` would exceed `limit` bytes; 1007 for corrupt data.
    package func decompress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8],
                            limit: Int) throws(WebSocketProtocolError) {
        guard input.count > 0 else { return }
        self.stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        self.stream.pointee.avail_in = uInt(input.count)
        defer {
            self.stream.pointee.next_in = nil
            self.stream.pointee.next_out = nil
        }
        var produced = output.count
        while true {
            if produced == output.count {
                // Grow, but never past limit + 1 (one byte over proves the limit was crossed).
                let room = limit + 1 - produced
                guard room > 0 else {
                    throw .messageTooBig("decompressed message over the limit of \(limit) bytes")
                }
                let grow = min(room, max(4096, min(input.count * 4, 1 << 20), output.count))
                output.append(contentsOf: repeatElement(0, count: grow))
            }
            let result: Int32 = output.withUnsafeMutableBytes { buffer in
                self.stream.pointee.next_out = buffer.baseAddress!.advanced(by: produced).assumingMemoryBound(to: Bytef.self)
                self.stream.pointee.avail_out = uInt(buffer.count - produced)
                let status = inflate(self.stream, Z_SYNC_FLUSH)
                produced = buffer.count - Int(self.stream.pointee.avail_out)
                return status
            }
            if produced > limit {
                output.removeSubrange(produced...)
                throw .messageTooBig("decompressed message over the limit of \(limit) bytes")
            }
            switch result {
            case Z_OK, Z_BUF_ERROR:
                if self.stream.pointee.avail_in == 0 && self.stream.pointee.avail_out > 0 {
                    output.removeSubrange(produced...)
                    return
                }
                if result == Z_BUF_ERROR && self.stream.pointee.avail_out > 0 {
                    output.removeSubrange(produced...)
                    return
                }
            case Z_STREAM_END:
                // A final block (BFINAL) ends this DEFLATE stream; the next message starts a new one.
                inflateReset(self.stream)
                if self.stream.pointee.avail_in == 0 {
                    output.removeSubrange(produced...)
                    return
                }
            default:
                output.removeSubrange(produced...)
                throw .invalidUTF8("corrupt permessage-deflate data")
            }
        }
    }

    package func decompress(_ input: [UInt8], into output: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        var failure: WebSocketProtocolError?
        input.withUnsafeBytes { buffer in
            do throws(WebSocketProtocolError) {
                try self.decompress(buffer, into: &output, limit: limit)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Ends a message: inflates the removed `00 00 ff ff` tail, and resets the stream when
    /// the peer does not take context over.
    package func finishMessage(into output: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        try self.decompress(Self.tail, into: &output, limit: limit)
        if self.noContextTakeover { inflateReset(self.stream) }
    }

    /// Drops any partial state (after a failed message).
    package func reset() {
        inflateReset(self.stream)
    }
}
