import CRealtimeZlib

/// Streaming decoder of the `gzip` and `deflate` content codings (RFC 9110 §8.4.1) with the
/// system zlib, sans-I/O and bounded.
///
/// Feed each body chunk to ``decode(_:)`` as it arrives; it returns the bytes inflated so far
/// (whatever the sender flushed, so an event stream compressed with `Z_SYNC_FLUSH` arrives
/// event by event). Call ``finish()`` at the end of the body: it fails when the compressed
/// stream was cut short.
///
/// - `gzip` (and `x-gzip`): RFC 1952, several members in a row accepted.
/// - `deflate`: the zlib format (RFC 1950) as RFC 9110 specifies, or a raw DEFLATE stream
///   (RFC 1951) as some servers send; told apart by the first two bytes.
/// - Output limit, like the WebSocket inflater's: the total output may exceed the input at most
///   by ``Limit/maxRatio`` times plus ``Limit/allowance`` bytes; past that (a "gzip bomb") the
///   decoder fails with `.limitExceeded` before storing the extra bytes, so one call never
///   holds more than that bound.
///
/// ```swift
/// let decoder = HTTPContentDecoder(contentEncoding: "gzip")!
/// for chunk in bodyChunks { consume(try decoder.decode(chunk)) }
/// try decoder.finish()
/// ```
///
/// - Important: Not thread-safe; the owner (one response body) confines it.
package final class HTTPContentDecoder: @unchecked Sendable {
    // @unchecked: the z_stream is mutated by every call; a body source owns its decoder behind
    // its one lock and never uses it concurrently.

    /// The supported codings.
    package enum Coding: Sendable, Hashable {
        case gzip
        case deflate
    }

    /// How much output a compressed body may produce.
    package struct Limit: Sendable, Hashable {
        /// Output bytes allowed per input byte beyond ``allowance``.
        package var maxRatio: Int
        /// Output bytes allowed on top of the ratio (covers small, highly compressible bodies).
        package var allowance: Int

        /// 100 : 1 plus 16 MiB (the WebSocket client's default message limit).
        package init(maxRatio: Int = 100, allowance: Int = 16 << 20) {
            self.maxRatio = maxRatio
            self.allowance = allowance
        }
    }

    package let coding: Coding
    private let limit: Limit
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 8)
    private var initialized = false
    /// `deflate` bytes held until the first two tell zlib from raw DEFLATE.
    private var pendingHeader: [UInt8] = []
    private var inputBytes = 0
    private var outputBytes = 0
    /// Whether the current stream (gzip member) reached its end.
    private var atStreamEnd = false
    private var sawInput = false
    private var failure: HTTPContentDecodingError?

    /// A decoder for `coding`.
    package init(coding: Coding, limit: Limit = Limit()) {
        self.coding = coding
        self.limit = limit
        self.stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        self.stream.initialize(to: z_stream())
    }

    /// A decoder for a `Content-Encoding` field value, or `nil` when it names no coding this
    /// decoder handles alone (identity, `br`, several codings): such a body is passed through.
    package convenience init?(contentEncoding: String, limit: Limit = Limit()) {
        switch contentEncoding[...].trimmingHTTPWhitespace().lowercased() {
        case "gzip", "x-gzip": self.init(coding: .gzip, limit: limit)
        case "deflate": self.init(coding: .deflate, limit: limit)
        default: return nil
        }
    }

    deinit {
        if self.initialized { inflateEnd(self.stream) }
        self.scratch.deallocate()
        self.stream.deinitialize(count: 1)
        self.stream.deallocate()
    }

    /// Inflates `input` and returns the bytes it completes (possibly none).
    ///
    /// When `input` holds an error after bytes that inflate, those bytes are returned and the
    /// error is thrown by the next call (``decode(_:)``, ``finish()`` or ``throwIfFailed()``).
    /// - Throws: `.corrupt` for bytes that are not the coding, `.limitExceeded` past the
    ///   output limit. The decoder then stays failed.
    package func decode(_ input: [UInt8]) throws(HTTPContentDecodingError) -> [UInt8] {
        if let failure = self.failure { throw failure }
        guard !input.isEmpty else { return [] }
        self.sawInput = true
        var input = input
        if !self.initialized {
            var windowBits: Int32 = 15 + 16
            if self.coding == .deflate {
                self.pendingHeader += input
                guard self.pendingHeader.count >= 2 else { return [] }
                input = self.pendingHeader
                self.pendingHeader = []
                let (cmf, flg) = (UInt32(input[0]), UInt32(input[1]))
                let isZlib = cmf & 0x0F == 8 && cmf >> 4 <= 7 && (cmf << 8 | flg) % 31 == 0
                windowBits = isZlib ? 15 : -15
            }
            guard crealtime_inflateInit2(self.stream, windowBits) == Z_OK else {
                throw self.fail(.corrupt, "zlib could not be initialized")
            }
            self.initialized = true
        }
        self.inputBytes += input.count
        var output: [UInt8] = []
        var failure: HTTPContentDecodingError?
        input.withUnsafeBytes { buffer in
            do throws(HTTPContentDecodingError) {
                try self.inflate(buffer, into: &output)
            } catch {
                failure = error
            }
        }
        if let failure {
            // The bytes inflated before the error are valid body: hand them over and report
            // the error on the next call, so the output before an error does not depend on
            // how the body was chunked.
            _ = self.fail(failure)
            if output.isEmpty { throw failure }
        }
        return output
    }

    /// Throws the error that ended decoding, if any (one that a ``decode(_:)`` call returning
    /// the bytes before it left for later).
    package func throwIfFailed() throws(HTTPContentDecodingError) {
        if let failure = self.failure { throw failure }
    }

    /// Ends the body.
    /// - Throws: `.truncated` when compressed bytes arrived but their stream did not end.
    package func finish() throws(HTTPContentDecodingError) {
        if let failure = self.failure { throw failure }
        guard self.sawInput else { return }
        guard self.atStreamEnd else {
            throw self.fail(.truncated, "the compressed body ended before its \(self.coding) stream did")
        }
    }

    private func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(HTTPContentDecodingError) {
        let base = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        self.stream.pointee.next_in = base
        self.stream.pointee.avail_in = uInt(input.count)
        defer {
            self.stream.pointee.next_in = nil
            self.stream.pointee.next_out = nil
        }
        while true {
            if self.atStreamEnd {
                guard self.stream.pointee.avail_in > 0 else { return }
                // More after a finished stream: another gzip member (RFC 1952 §2.2); for
                // deflate, bytes after the end are not part of the coding.
                guard self.coding == .gzip else {
                    throw HTTPContentDecodingError(.corrupt, "bytes after the end of the deflate stream")
                }
                inflateReset(self.stream)
                self.atStreamEnd = false
            }
            self.stream.pointee.next_out = self.scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            self.stream.pointee.avail_out = uInt(self.scratch.count)
            let status = CRealtimeZlib.inflate(self.stream, Z_NO_FLUSH)
            let produced = self.scratch.count - Int(self.stream.pointee.avail_out)
            if produced > 0 {
                let allowed = self.limit.allowance + self.limit.maxRatio * self.inputBytes
                guard self.outputBytes + produced <= allowed else {
                    throw HTTPContentDecodingError(
                        .limitExceeded,
                        "the decompressed body exceeds \(self.limit.maxRatio)x its compressed size plus \(self.limit.allowance) bytes")
                }
                self.outputBytes += produced
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: self.scratch[0..<produced]))
            }
            switch status {
            case Z_OK:
                if self.stream.pointee.avail_in == 0 && self.stream.pointee.avail_out > 0 { return }
            case Z_BUF_ERROR:
                return
            case Z_STREAM_END:
                self.atStreamEnd = true
            default:
                throw HTTPContentDecodingError(.corrupt, "the body is not valid \(self.coding) data")
            }
        }
    }

    private func fail(_ kind: HTTPContentDecodingError.Kind, _ message: String) -> HTTPContentDecodingError {
        self.fail(HTTPContentDecodingError(kind, message))
    }

    private func fail(_ error: HTTPContentDecodingError) -> HTTPContentDecodingError {
        self.failure = error
        return error
    }
}

/// Why ``HTTPContentDecoder`` rejected a body.
package struct HTTPContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// The bytes are not the declared coding.
        case corrupt
        /// The body ended inside the compressed stream.
        case truncated
        /// The output passed ``HTTPContentDecoder/Limit`` (a decompression bomb).
        case limitExceeded
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
