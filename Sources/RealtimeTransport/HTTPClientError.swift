/// Every failure of an HTTP exchange.
package struct HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case invalidURL
        case network(NetworkError.Kind)
        case timedOut
        case invalidResponse
        case headersTooLarge
        case bodyTooLarge
        case truncatedBody
        /// A `gzip`/`deflate` body that is corrupt or cut inside its compressed stream.
        case invalidContentEncoding
        /// A compressed body that inflates past the decoder's limit (a decompression bomb).
        case decompressedBodyTooLarge
        case tooManyRedirects
        case cancelled
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package init(_ error: NetworkError) {
        self.kind = .network(error.kind)
        self.message = error.message
    }

    package var description: String { "\(self.kind): \(self.message)" }
}
