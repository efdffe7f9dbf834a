import WebSocketCodec

/// Feeds a decoder three ways — whole, byte by byte, split at every offset — as the house
/// style requires of every decoder test (after NIO's ByteToMessageDecoderVerifier).
enum DecoderFeeding {
    /// Decodes `chunks` in order; returns the frames, or the error the decoder threw.
    static func decode(
        _ chunks: [[UInt8]], role: WebSocketFrameDecoder.Role = .client,
        maxFramePayloadSize: Int = 16 << 20, allowsRSV1: Bool = false
    )
        -> Result<[WebSocketFrame], WebSocketProtocolError>
    {
        var decoder = WebSocketFrameDecoder(role: role, maxFramePayloadSize: maxFramePayloadSize, allowsRSV1: allowsRSV1)
        var frames: [WebSocketFrame] = []
        do throws(WebSocketProtocolError) {
            for chunk in chunks {
                decoder.append(chunk)
                while let frame = try decoder.nextFrame() { frames.append(frame) }
            }
        } catch {
            return .failure(error)
        }
        return .success(frames)
    }

    /// Every way of cutting `bytes` the style asks for: whole, one byte at a time, and in two
    /// pieces at each offset (`offsets` limits which, for large inputs).
    static func splits(_ bytes: [UInt8], offsets: [Int]? = nil) -> [[[UInt8]]] {
        var ways: [[[UInt8]]] = [[bytes], bytes.map { [$0] }]
        for offset in offsets ?? Array(0...bytes.count) where offset <= bytes.count {
            ways.append([Array(bytes[..<offset]), Array(bytes[offset...])])
        }
        return ways
    }

    /// Decodes every split and returns the distinct results (one when the decoder is correct).
    static func decodeAllWays(
        _ bytes: [UInt8], offsets: [Int]? = nil,
        role: WebSocketFrameDecoder.Role = .client,
        maxFramePayloadSize: Int = 16 << 20, allowsRSV1: Bool = false
    )
        -> [Result<[WebSocketFrame], WebSocketProtocolError>]
    {
        var results: [Result<[WebSocketFrame], WebSocketProtocolError>] = []
        for way in self.splits(bytes, offsets: offsets) {
            let result = self.decode(way, role: role, maxFramePayloadSize: maxFramePayloadSize, allowsRSV1: allowsRSV1)
            if !results.contains(result) { results.append(result) }
        }
        return results
    }
}
