import CRealtimeZlib
import HTTP1Codec
import Testing

/// Compresses like a server: one zlib stream (gzip, zlib or raw by `windowBits`), with a
/// `Z_SYNC_FLUSH` after each part so each part's bytes can be inflated on their own.
func compress(_ parts: [[UInt8]], windowBits: Int32, finish: Bool = true) -> (all: [UInt8], boundaries: [Int]) {
    var stream = z_stream()
    precondition(crealtime_deflateInit2(&stream, 6, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK)
    defer { deflateEnd(&stream) }
    var output: [UInt8] = []
    var boundaries: [Int] = []
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    func run(_ input: [UInt8], flush: Int32) {
        var input = input
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            repeat {
                scratch.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    _ = deflate(&stream, flush)
                    output += out[0..<(out.count - Int(stream.avail_out))]
                }
            } while stream.avail_out == 0
        }
    }
    for part in parts {
        run(part, flush: Z_SYNC_FLUSH)
        boundaries.append(output.count)
    }
    if finish { run([], flush: Z_FINISH) }
    return (output, boundaries)
}

@Suite struct HTTPContentDecoderTests {
    static let text = Array((0..<2000).map { "data: event \($0) with some text\n\n" }.joined().utf8)
    /// gzip (31), zlib "deflate" (15) and raw DEFLATE sent as "deflate" (-15).
    static let codings: [(String, Int32)] = [("gzip", 31), ("deflate", 15), ("deflate", -15)]

    private func decode(_ encoding: String, _ chunks: [[UInt8]]) throws(HTTPContentDecodingError) -> [UInt8] {
        let decoder = HTTPContentDecoder(contentEncoding: encoding)!
        var output: [UInt8] = []
        for chunk in chunks { output += try decoder.decode(chunk) }
        try decoder.finish()
        return output
    }

    @Test(arguments: 0..<3)
    func wholeByteByByteAndSplitAtEveryOffset(_ index: Int) throws {
        let (encoding, bits) = Self.codings[index]
        let small = Array("data: hi\n\nid: 7\ndata: there\n\n".utf8)
        let compressed = compress([small], windowBits: bits).all
        #expect(try self.decode(encoding, [compressed]) == small)
        #expect(try self.decode(encoding, compressed.map { [$0] }) == small)
        for cut in 0...compressed.count {
            #expect(try self.decode(encoding, [Array(compressed[..<cut]), Array(compressed[cut...])]) == small)
        }
        let big = compress([Self.text], windowBits: bits).all
        #expect(
            try self.decode(
                encoding,
                stride(from: 0, to: big.count, by: 1000).map {
                    Array(big[$0..<min($0 + 1000, big.count)])
                }) == Self.text)
    }

    @Test(arguments: 0..<3)
    func eachFlushedPartInflatesOnArrival(_ index: Int) throws {
        let (encoding, bits) = Self.codings[index]
        let parts = (1...5).map { Array("id: \($0)\ndata: event \($0)\n\n".utf8) }
        let (all, boundaries) = compress(parts, windowBits: bits)
        let decoder = HTTPContentDecoder(contentEncoding: encoding)!
        var start = 0
        for (part, end) in zip(parts, boundaries) {
            #expect(try decoder.decode(Array(all[start..<end])) == part)
            start = end
        }
        #expect(try decoder.decode(Array(all[start...])).isEmpty)
        try decoder.finish()
    }

    @Test func concatenatedGzipMembersAreOneBody() throws {
        let first = compress([Array("one ".utf8)], windowBits: 31).all
        let second = compress([Array("two".utf8)], windowBits: 31).all
        #expect(try self.decode("gzip", [first + second]) == Array("one two".utf8))
        #expect(try self.decode("x-gzip", [first, second]) == Array("one two".utf8))
    }

    @Test(arguments: 0..<3)
    func aBombIsATypedErrorWithBoundedOutput(_ index: Int) {
        let (encoding, bits) = Self.codings[index]
        let zeros = [UInt8](repeating: 0, count: 64 << 20)
        let bomb = compress([zeros], windowBits: bits).all
        #expect(bomb.count < 128 * 1024)
        let decoder = HTTPContentDecoder(contentEncoding: encoding, limit: .init(maxRatio: 100, allowance: 1 << 20))!
        var produced = 0
        var failure: HTTPContentDecodingError?
        for start in stride(from: 0, to: bomb.count, by: 16 * 1024) {
            do {
                produced += try decoder.decode(Array(bomb[start..<min(start + 16 * 1024, bomb.count)])).count
            } catch {
                failure = error
                break
            }
        }
        #expect(failure?.kind == .limitExceeded)
        #expect(produced <= (1 << 20) + 100 * bomb.count)
        // It stays failed.
        #expect(throws: HTTPContentDecodingError.self) { try decoder.decode([0]) }
    }

    @Test(arguments: 0..<3)
    func aTruncatedBodyFailsAtTheEnd(_ index: Int) throws {
        let (encoding, bits) = Self.codings[index]
        let compressed = compress([Self.text], windowBits: bits).all
        let decoder = HTTPContentDecoder(contentEncoding: encoding)!
        let partial = try decoder.decode(Array(compressed.dropLast(12)))
        #expect(!partial.isEmpty)
        #expect(Self.text.starts(with: partial))
        #expect(throws: HTTPContentDecodingError(.truncated, "the compressed body ended before its \(decoder.coding) stream did")) {
            try decoder.finish()
        }
    }

    @Test func garbageIsCorrupt() throws {
        for encoding in ["gzip", "deflate"] {
            let decoder = HTTPContentDecoder(contentEncoding: encoding)!
            #expect(throws: HTTPContentDecodingError.self) {
                _ = try decoder.decode(Array("this is not compressed at all, just text\n".utf8))
                try decoder.finish()
            }
        }
        // Bytes after a finished deflate stream.
        let decoder = HTTPContentDecoder(contentEncoding: "deflate")!
        let done = compress([Array("x".utf8)], windowBits: 15).all
        #expect(try decoder.decode(done + [1, 2, 3]) == Array("x".utf8))
        #expect(throws: HTTPContentDecodingError.self) { try decoder.finish() }
    }

    /// Fuzz finding (http-content, Fuzz/Corpus/http-content/gzip-trailing-garbage): the bytes
    /// inflated before corrupt data in the same chunk were dropped with the error, so what the
    /// consumer got before the error depended on how the body was cut. They are now delivered
    /// and the error comes with the next call, whole or split alike.
    @Test(arguments: 0..<3)
    func bytesBeforeCorruptDataAreDeliveredHoweverTheBodyIsCut(_ index: Int) {
        let (encoding, bits) = Self.codings[index]
        let small = Array("data: hi\n\nid: 7\ndata: there\n\n".utf8)
        // gzip: a second member with a bad header; deflate: bytes after the end of the stream.
        let body = compress([small], windowBits: bits).all + Array("\u{1F}garbage".utf8)
        for cut in 0...body.count {
            let decoder = HTTPContentDecoder(contentEncoding: encoding)!
            var output: [UInt8] = []
            var failure: HTTPContentDecodingError?
            do throws(HTTPContentDecodingError) {
                for piece in [Array(body[..<cut]), Array(body[cut...])] { output += try decoder.decode(piece) }
                try decoder.finish()
            } catch {
                failure = error
            }
            #expect(output == small, "cut at \(cut)")
            #expect(failure?.kind == .corrupt, "cut at \(cut)")
            #expect(throws: HTTPContentDecodingError.self) { try decoder.throwIfFailed() }
        }
    }

    @Test func anEmptyBodyIsFineAndOtherCodingsAreNotDecoded() throws {
        let decoder = HTTPContentDecoder(contentEncoding: " GZIP ")!
        try decoder.finish()
        for other in ["br", "identity", "gzip, br", "compress", ""] {
            #expect(HTTPContentDecoder(contentEncoding: other) == nil, "\(other)")
        }
    }
}
