import HTTP1Codec
import RealtimeSync

/// A response body whose `Content-Encoding` (gzip or deflate) is undone as it streams: each
/// chunk of the underlying body is inflated when pulled, so flushed compressed data (an event
/// stream behind a compressing proxy) reaches the consumer without waiting for the end.
///
/// Memory stays bounded by the decoder's ``HTTPContentDecoder/Limit``; a body that exceeds it
/// fails with `.decompressedBodyTooLarge`, corrupt or truncated data with
/// `.invalidContentEncoding`, and the connection is closed.
///
/// - Important: Unicast like the body it wraps; ``cancel()`` may be called from anywhere.
final class HTTPDecodingBodySource: HTTPBodySource {
    private let base: any HTTPBodySource
    /// The decoder, used by the single consumer inside ``next()`` (never across a suspension).
    private let decoder: LockedValue<HTTPContentDecoder>

    init(base: any HTTPBodySource, decoder: HTTPContentDecoder) {
        self.base = base
        self.decoder = LockedValue(decoder)
    }

    func next() async throws(HTTPClientError) -> [UInt8]? {
        while true {
            // An error found after bytes the last call returned ends the body before waiting
            // for more of it.
            let failed: HTTPContentDecodingError? = self.decoder.withLock { decoder in
                do throws(HTTPContentDecodingError) { try decoder.throwIfFailed() } catch { return error }
                return nil
            }
            let chunk = failed == nil ? try await self.base.next() : []
            let result: Result<[UInt8]?, HTTPContentDecodingError> = self.decoder.withLock { decoder in
                do throws(HTTPContentDecodingError) {
                    guard let chunk else {
                        try decoder.finish()
                        return .success(nil)
                    }
                    return .success(try decoder.decode(chunk))
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(nil):
                return nil
            case .success(let bytes?):
                if !bytes.isEmpty { return bytes }
            case .failure(let error):
                self.base.cancel()
                switch error.kind {
                case .limitExceeded: throw HTTPClientError(.decompressedBodyTooLarge, error.message)
                case .corrupt, .truncated: throw HTTPClientError(.invalidContentEncoding, error.message)
                }
            }
        }
    }

    func cancel() {
        self.base.cancel()
    }
}
