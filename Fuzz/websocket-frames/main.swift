// Fuzz target: WebSocketFrameDecoder + WebSocketMessageAssembler (+ the permessage-deflate
// inflater when the first input byte negotiates it), driven as the connection drives them,
// including the fail-fast UTF-8 check of a text frame that has not fully arrived.
//
// Properties: the input decoded whole and cut into fuzzer-chosen pieces gives the same
// messages and the same close code, whether the fail-fast check of a partial frame or the
// complete frame reports it (Fuzz/Corpus/websocket-frames/rsv1-continuation-invalid-utf8.bin); no frame payload exceeds maxFramePayloadSize and no message exceeds
// maxMessageSize; every decoded frame re-encoded with WebSocketFrameEncoder decodes to itself;
// a failed decoder or assembler keeps failing.
import WebSocketCodec

struct Setup {
    var role: WebSocketFrameDecoder.Role
    var deflate: Bool
    var noContextTakeover: Bool
    var maxFramePayloadSize: Int
    var maxMessageSize: Int
}

struct Outcome: Equatable {
    var events: [WebSocketMessageAssembler.Event] = []
    var closeCode: UInt16?
    /// The failure came from the fail-fast check of a partial text frame.
    var failedEarly = false
}

func maskingKey(_ seed: Int) -> WebSocketMaskingKey {
    WebSocketMaskingKey(UInt8(truncatingIfNeeded: seed), UInt8(truncatingIfNeeded: seed >> 3), 0x5A, 0xC3)
}

/// Re-encodes a decoded frame and decodes it again: the same frame must come back.
func checkRoundTrip(_ frame: WebSocketFrame, setup: Setup) {
    guard !frame.rsv2, !frame.rsv3 else { return }
    let key: WebSocketMaskingKey? = setup.role == .server ? maskingKey(frame.payload.count) : nil
    let bytes = WebSocketFrameEncoder.encode(opcode: frame.opcode, payload: frame.payload, fin: frame.fin,
                                             rsv1: frame.rsv1, maskingKey: key)
    var decoder = WebSocketFrameDecoder(role: setup.role, maxFramePayloadSize: setup.maxFramePayloadSize,
                                        allowsRSV1: setup.deflate)
    decoder.append(bytes)
    do throws(WebSocketProtocolError) {
        let again = try decoder.nextFrame()
        require(again == frame, "re-encoded frame decodes differently")
        require(decoder.bufferedByteCount == 0, "bytes left after a re-encoded frame")
    } catch {
        require(false, "re-encoded frame fails to decode: \(error)")
    }
}

func decode(_ chunks: [ArraySlice<UInt8>], setup: Setup, checkFrames: Bool) -> Outcome {
    var decoder = WebSocketFrameDecoder(role: setup.role, maxFramePayloadSize: setup.maxFramePayloadSize,
                                        allowsRSV1: setup.deflate)
    let decompressor = setup.deflate ? PerMessageDeflateDecompressor(noContextTakeover: setup.noContextTakeover) : nil
    require(!setup.deflate || decompressor != nil, "inflateInit failed")
    var assembler = WebSocketMessageAssembler(maxMessageSize: setup.maxMessageSize, decompressor: decompressor)
    var outcome = Outcome()
    var partialText = WebSocketPartialTextCheck()
    do throws(WebSocketProtocolError) {
        for chunk in chunks {
            decoder.append(Array(chunk))
            while true {
                guard let frame = try decoder.nextFrame() else {
                    // The connection's fail-fast check of a text frame still arriving.
                    if let partial = decoder.partialFrame {
                        require(partial.payloadSoFar.count <= setup.maxFramePayloadSize, "partial frame over the limit")
                    }
                    do throws(WebSocketProtocolError) {
                        try partialText.check(decoder, assembler)
                    } catch {
                        outcome.failedEarly = true
                        throw error
                    }
                    break
                }
                partialText.frameCompleted()
                require(frame.payload.count <= setup.maxFramePayloadSize,
                        "frame payload \(frame.payload.count) over \(setup.maxFramePayloadSize)")
                if checkFrames { checkRoundTrip(frame, setup: setup) }
                guard let event = try assembler.receive(frame) else { continue }
                switch event {
                case .text(let text):
                    require(text.utf8.count <= setup.maxMessageSize, "text message over the limit")
                case .binary(let bytes):
                    require(bytes.count <= setup.maxMessageSize, "binary message over the limit")
                case .ping(let payload), .pong(let payload):
                    require(payload.count <= 125, "control payload over 125 bytes")
                case .close(_, let reason):
                    require(reason.utf8.count <= 123, "close reason over 123 bytes")
                }
                outcome.events.append(event)
            }
        }
    } catch {
        outcome.closeCode = error.closeCode
        require([1002, 1007, 1009].contains(error.closeCode), "unexpected close code \(error.closeCode)")
        if !outcome.failedEarly {
            // Failed codecs stay failed.
            var decoderAgain = false
            do throws(WebSocketProtocolError) { _ = try decoder.nextFrame() } catch { decoderAgain = true }
            var assemblerAgain = false
            do throws(WebSocketProtocolError) {
                _ = try assembler.receive(WebSocketFrame(opcode: .ping, payload: []))
            } catch { assemblerAgain = true }
            require(decoderAgain || assemblerAgain, "neither codec stayed failed")
        }
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let frameLimit = input.byte()
    let messageLimit = input.byte()
    let splitSeed = input.uint16()
    let setup = Setup(role: flags & 4 == 0 ? .client : .server,
                      deflate: flags & 1 != 0, noContextTakeover: flags & 2 != 0,
                      maxFramePayloadSize: frameLimit == 0 ? 16 << 20 : Int(frameLimit) * 4,
                      maxMessageSize: messageLimit == 0 ? 16 << 20 : Int(messageLimit) * 8)
    let bytes = input.rest()

    let whole = decode([bytes[...]], setup: setup, checkFrames: true)
    let split = decode(pieces(of: bytes, seed: splitSeed), setup: setup, checkFrames: false)
    // The fail-fast check only anticipates the assembler: whether it or the complete frame
    // reports an error, the messages before it and the close code are the same.
    require(whole.events == split.events && whole.closeCode == split.closeCode,
            "whole and split decodes differ:\n\(whole)\n\(split)")
    return 0
}
