/// The source behind an ``HTTPResponseBody``; each transport provides its own.
package protocol HTTPBodySource: AnyObject, Sendable {
    /// The next chunk, or `nil` at the end of the body. Bytes are read from the network only
    /// while a caller waits here (backpressure).
    func next() async throws(HTTPClientError) -> [UInt8]?
    /// Stops the body early and releases (or closes) the connection. Idempotent.
    func cancel()
}

/// A response body as an `AsyncSequence` of byte chunks. Unicast: iterate it once.
package struct HTTPResponseBody: AsyncSequence, Sendable {
    package typealias Element = [UInt8]
    package typealias Failure = HTTPClientError

    package let source: any HTTPBodySource

    package init(source: any HTTPBodySource) {
        self.source = source
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        package typealias Element = [UInt8]
        package typealias Failure = HTTPClientError
        let source: any HTTPBodySource

        package mutating func next() async throws(HTTPClientError) -> [UInt8]? {
            try await self.source.next()
        }

        package mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPClientError) -> [UInt8]? {
            try await self.source.next()
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self.source) }

    /// Reads the whole body, failing with `.bodyTooLarge` past `limit` bytes.
    package func collect(upTo limit: Int) async throws(HTTPClientError) -> [UInt8] {
        var result: [UInt8] = []
        while let chunk = try await self.source.next() {
            guard result.count + chunk.count <= limit else {
                self.source.cancel()
                throw HTTPClientError(.bodyTooLarge, "response body exceeds \(limit) bytes")
            }
            if result.isEmpty {
                // The first chunk is kept as it is (a body read in one chunk is not copied).
                result = chunk
            } else {
                result += chunk
            }
        }
        return result
    }

    /// Stops reading the body and releases the connection.
    package func cancel() { self.source.cancel() }
}
