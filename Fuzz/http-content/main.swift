// Fuzz target: HTTPContentDecoder (the gzip / deflate content codings of an HTTP body, RFC 9110
// §8.4.1) on hostile bytes, and zlib-compressed bodies decoded back.
//
// Properties:
// - after every decode() call the output so far stays within the limit (maxRatio x the input
//   so far + allowance), also when it fails (a gzip bomb stops at the limit);
// - the body decoded whole and cut into fuzzer-chosen pieces gives the same bytes and the same
//   error (the bytes inflated before an error are delivered, the error comes next). One
//   exception is by design: the limit counts the input received so far, and inflated bytes
//   are refused 32 KiB at a time, so a piece that inflates far more than its own size can fail
//   `.limitExceeded` although the whole body stays within its bound, and the bytes delivered
//   before a limit failure depend on the cuts. Then the split decode fails the limit too
//   (whole fails the limit => split does) and one output is a prefix of the other;
// - a failed decoder keeps failing;
// - gzip (one or two members), zlib-format and raw deflate compressions of the payload by zlib
//   decode back to the payload, whole and split.
import CRealtimeZlib
import HTTP1Codec

struct Outcome: Equatable {
    var bytes: [UInt8] = []
    var error: HTTPContentDecodingError.Kind?
}

func decode(_ pieces: [ArraySlice<UInt8>], coding: HTTPContentDecoder.Coding,
            limit: HTTPContentDecoder.Limit) -> Outcome {
    let decoder = HTTPContentDecoder(coding: coding, limit: limit)
    var outcome = Outcome()
    var input = 0
    do throws(HTTPContentDecodingError) {
        for piece in pieces {
            input += piece.count
            do throws(HTTPContentDecodingError) {
                outcome.bytes += try decoder.decode(Array(piece))
            } catch {
                require(outcome.bytes.count <= limit.allowance + limit.maxRatio * input,
                        "output \(outcome.bytes.count) over the limit after a failure")
                throw error
            }
            require(outcome.bytes.count <= limit.allowance + limit.maxRatio * input,
                    "output \(outcome.bytes.count) over the limit for \(input) input bytes")
        }
        try decoder.finish()
    } catch {
        outcome.error = error.kind
        // Failed stays failed.
        var again = false
        do throws(HTTPContentDecodingError) { _ = try decoder.decode([0]) } catch { again = error.kind == outcome.error }
        require(again, "a failed decoder accepted more input")
    }
    return outcome
}

/// zlib's own compression of `payload`: windowBits 31 = gzip, 15 = zlib format, -15 = raw.
func compress(_ payload: [UInt8], windowBits: Int32, level: Int32) -> [UInt8] {
    var stream = z_stream()
    require(crealtime_deflateInit2(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK,
            "deflateInit2 failed")
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(payload.count))) + 64)
    var input = payload
    let written: Int = input.withUnsafeMutableBufferPointer { inBuffer in
        output.withUnsafeMutableBufferPointer { outBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            stream.next_out = outBuffer.baseAddress
            stream.avail_out = uInt(outBuffer.count)
            let status = deflate(&stream, Z_FINISH)
            require(status == Z_STREAM_END, "deflate did not finish: \(status)")
            return outBuffer.count - Int(stream.avail_out)
        }
    }
    return Array(output[..<written])
}

func checkSplit(_ bytes: [UInt8], seed: Int, coding: HTTPContentDecoder.Coding,
                limit: HTTPContentDecoder.Limit) -> Outcome {
    let whole = decode([bytes[...]], coding: coding, limit: limit)
    let split = decode(pieces(of: bytes, seed: seed), coding: coding, limit: limit)
    if whole.error == .limitExceeded || split.error == .limitExceeded {
        require(split.error == .limitExceeded, "the whole body fails the limit, the split one gives \(split.error as Any)")
        let (short, long) = whole.bytes.count <= split.bytes.count ? (whole.bytes, split.bytes) : (split.bytes, whole.bytes)
        require(Array(long[..<short.count]) == short, "the outputs before the limit disagree")
    } else {
        require(whole == split, "whole and split decodes differ: \(whole.error as Any) \(whole.bytes.count) vs \(split.error as Any) \(split.bytes.count)")
    }
    return whole
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPContent(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let ratio = input.byte()
    let allowance = input.byte()
    let seed = input.uint16()
    let payload = input.rest()
    let coding: HTTPContentDecoder.Coding = flags & 1 == 0 ? .gzip : .deflate
    // A small fuzzer-chosen limit exercises the bomb check on small inputs; the default
    // (100 x + 16 MiB) never trips on them.
    let limit = flags & 2 == 0
        ? HTTPContentDecoder.Limit()
        : HTTPContentDecoder.Limit(maxRatio: Int(ratio % 8), allowance: Int(allowance) * 16)

    if flags & 4 == 0 {
        // Hostile bytes as the body.
        _ = checkSplit(payload, seed: seed, coding: coding, limit: limit)
    } else {
        // zlib's compression of the payload decodes back to it.
        let level = Int32(flags >> 4) % 10
        let body: [UInt8]
        let expected = payload
        switch (coding, flags & 8 != 0) {
        case (.gzip, false):
            body = compress(payload, windowBits: 31, level: level)
        case (.gzip, true):
            // Two members (RFC 1952 §2.2): the payload cut at the seed.
            let cut = payload.isEmpty ? 0 : seed % (payload.count + 1)
            body = compress(Array(payload[..<cut]), windowBits: 31, level: level)
                + compress(Array(payload[cut...]), windowBits: 31, level: level)
        case (.deflate, let raw):
            body = compress(payload, windowBits: raw ? -15 : 15, level: level)
        }
        let outcome = checkSplit(body, seed: seed, coding: coding, limit: HTTPContentDecoder.Limit())
        require(outcome.error == nil, "zlib's own \(coding) output failed to decode: \(outcome.error as Any)")
        require(outcome.bytes == expected, "round trip changed the payload")
    }
    return 0
}
