import CRealtimeZlib

/// Compresses outgoing messages for permessage-deflate (RFC 7692 §7.2.1) with the system zlib.
///
/// Raw DEFLATE (no zlib header), each message flushed with `Z_SYNC_FLUSH` and the trailing
/// `0x00 0x00 0xff 0xff` removed. With no context takeover the stream is reset after each
/// message.
///
/// - Important: Not thread-safe. The owner (one connection) confines it under its lock.
package final class PerMessageDeflateCompressor: @unchecked Sendable {
    // @unchecked: the z_stream is mutated by every call; instances are confined by their
    // owner (one connection's writer lock), never shared between concurrent callers.
    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool
    private var initialized = false
    /// Where deflate writes before the bytes are appended to the frame payload.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 8)

    /// - Parameters:
    ///   - windowBits: 9...15 (zlib cannot make raw streams with an 8-bit window).
    ///   - noContextTakeover: reset after every message.
    package init?(windowBits: Int, noContextTakeover: Bool, level: Int32 = Z_DEFAULT_COMPRESSION) {
        self.stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        self.stream.initialize(to: z_stream())
        self.noContextTakeover = noContextTakeover
        let bits = Int32(max(9, min(15, windowBits)))
        guard crealtime_deflateInit2(self.stream, level, Z_DEFLATED, -bits, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            return nil
        }
        self.initialized = true
    }

    deinit {
        if self.initialized { deflateEnd(self.stream) }
        self.scratch.deallocate()
        self.stream.deinitialize(count: 1)
        self.stream.deallocate()
    }

    /// The compressed payload of one whole message, without the `00 00 ff ff` tail.
    package func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(min(input.count / 2 + 64, self.scratch.count))
        self.stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        self.stream.pointee.avail_in = uInt(input.count)
        while true {
            self.stream.pointee.next_out = self.scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            self.stream.pointee.avail_out = uInt(self.scratch.count)
            let status = deflate(self.stream, Z_SYNC_FLUSH)
            let produced = self.scratch.count - Int(self.stream.pointee.avail_out)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: self.scratch[0..<produced]))
            // With Z_SYNC_FLUSH, returning with output room left means everything was flushed.
            if self.stream.pointee.avail_out > 0 || (status != Z_OK && status != Z_BUF_ERROR) { break }
        }
        self.stream.pointee.next_in = nil
        self.stream.pointee.next_out = nil
        if output.count >= 4 && output[output.count - 4] == 0 && output[output.count - 3] == 0
            && output[output.count - 2] == 0xFF && output[output.count - 1] == 0xFF
        {
            output.removeLast(4)
        }
        if self.noContextTakeover { deflateReset(self.stream) }
        return output
    }

    package func compress(_ input: [UInt8]) -> [UInt8] {
        input.withUnsafeBytes { self.compress($0) }
    }
}
