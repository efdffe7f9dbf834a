// Fuzz target: PerMessageDeflateDecompressor (the permessage-deflate inflater, RFC 7692) on
// hostile compressed bytes, and PerMessageDeflateCompressor -> decompressor round trips.
//
// Properties: the output never exceeds the limit (also when it fails: a compression bomb
// stops at the limit with 1009); corrupt data fails with 1007, never a trap; inflating the
// input whole and cut into pieces gives the same bytes and the same error; compressing
// messages (any window size, with or without context takeover) and inflating them, cut
// anywhere, gives the messages back.
import WebSocketCodec

struct Outcome: Equatable {
    var messages: [[UInt8]] = []
    var closeCode: UInt16?
}

/// Inflates each message (its compressed bytes cut into `cuts` pieces) then its tail.
func inflate(_ messages: [[ArraySlice<UInt8>]], noContextTakeover: Bool, limit: Int) -> Outcome {
    guard let decompressor = PerMessageDeflateDecompressor(noContextTakeover: noContextTakeover) else {
        require(false, "inflateInit failed")
        return Outcome()
    }
    var outcome = Outcome()
    for pieces in messages {
        var output: [UInt8] = []
        do throws(WebSocketProtocolError) {
            for piece in pieces {
                try decompressor.decompress(Array(piece), into: &output, limit: limit)
                require(output.count <= limit, "inflated \(output.count) bytes over the limit \(limit)")
            }
            try decompressor.finishMessage(into: &output, limit: limit)
        } catch {
            require(output.count <= limit, "inflated \(output.count) bytes over the limit \(limit) before failing")
            require(error.closeCode == 1007 || error.closeCode == 1009, "unexpected close code \(error.closeCode)")
            outcome.closeCode = error.closeCode
            decompressor.reset()
            return outcome
        }
        require(output.count <= limit, "inflated \(output.count) bytes over the limit \(limit)")
        outcome.messages.append(output)
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketInflate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let limitChoice = input.byte()
    let seed = input.uint16()
    let bytes = input.rest()
    let noContextTakeover = flags & 2 != 0

    if flags & 1 == 0 {
        // Hostile compressed data: up to four messages, the bytes between 0xFF 0x00 markers
        // being message boundaries only in the sense of where the tail is appended.
        let limit = limitChoice == 0 ? 1 << 20 : Int(limitChoice) * 64
        let messages = bytes.split(separator: 0xFE, maxSplits: 3, omittingEmptySubsequences: false).map(Array.init)
        let whole = inflate(messages.map { [$0[...]] }, noContextTakeover: noContextTakeover, limit: limit)
        let split = inflate(messages.enumerated().map { pieces(of: $1, seed: seed &+ $0) },
                            noContextTakeover: noContextTakeover, limit: limit)
        require(whole == split, "whole and split inflation differ")
    } else {
        // Round trip through the compressor.
        let windowBits = 9 + Int(flags >> 2) % 7
        guard let compressor = PerMessageDeflateCompressor(windowBits: windowBits, noContextTakeover: noContextTakeover,
                                                           level: Int32(flags >> 5) % 10) else {
            require(false, "deflateInit failed")
            return 0
        }
        let messages = pieces(of: bytes, seed: seed).prefix(4).map(Array.init)
        let compressed = messages.map { compressor.compress($0) }
        // A decompressor that keeps its context can read both kinds of sender.
        let limit = max(1, messages.map(\.count).max() ?? 1)
        let result = inflate(compressed.enumerated().map { pieces(of: $1, seed: Int(limitChoice) &+ $0) },
                             noContextTakeover: noContextTakeover && limitChoice & 1 == 0, limit: limit)
        require(result.closeCode == nil, "round trip failed with \(String(describing: result.closeCode))")
        require(result.messages == messages, "round trip changed the messages")
    }
    return 0
}
