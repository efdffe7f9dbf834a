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
    /// Where inflate writes before the bytes are appended to the message.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 8)
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
        self.scratch.deallocate()
        self.stream.deinitialize(count: 1)
        self.stream.deallocate()
    }

    /// Inflates `input`, appending to `output`.
    ///
    /// Inflates into a fixed scratch buffer and appends what each step produced, so the
    /// output grows only by bytes that really exist and the limit is checked before they
    /// are stored.
    /// - Throws: 1009 when `output` would exceed `limit` bytes; 1007 for corrupt data.
    package func decompress(
        _ input: UnsafeRawBufferPointer, into output: inout [UInt8],
        limit: Int
    ) throws(WebSocketProtocolError) {
        guard let inputBase = input.baseAddress, input.count > 0 else { return }
        self.stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBase.assumingMemoryBound(to: Bytef.self))
        self.stream.pointee.avail_in = uInt(input.count)
        defer {
            self.stream.pointee.next_in = nil
            self.stream.pointee.next_out = nil
        }
        while true {
            self.stream.pointee.next_out = self.scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            self.stream.pointee.avail_out = uInt(self.scratch.count)
            let status = inflate(self.stream, Z_SYNC_FLUSH)
            let produced = self.scratch.count - Int(self.stream.pointee.avail_out)
            if produced > 0 {
                guard output.count + produced <= limit else {
                    throw .messageTooBig("decompressed message over the limit of \(limit) bytes")
                }
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: self.scratch[0..<produced]))
            }
            switch status {
            case Z_OK:
                // Room left in the scratch buffer means inflate is waiting for input.
                if self.stream.pointee.avail_in == 0 && self.stream.pointee.avail_out > 0 { return }
            case Z_BUF_ERROR:
                return
            case Z_STREAM_END:
                // A final block (BFINAL) ends this DEFLATE stream; the next message starts a new one.
                inflateReset(self.stream)
                if self.stream.pointee.avail_in == 0 { return }
            default:
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
