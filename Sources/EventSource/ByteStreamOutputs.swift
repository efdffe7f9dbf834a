/// The outputs of a byte sequence read through a ``ByteStreamEventParser``: the one refill loop
/// behind ``ServerEventSequence`` and ``ServerEventElementSequence``, which only choose what
/// to yield of each output.
///
/// Reads the base only when the parser has no output left; a parser error is thrown after the
/// outputs before it in the same chunk; after an error or the end (or the terminator), `nil`.
struct ByteStreamOutputs<Base: AsyncIteratorProtocol> {
    private var base: Base
    private let reader: ByteChunkReader<Base>
    private var parser: ByteStreamEventParser
    private var finished = false
    /// The parser's error, thrown once the outputs before it are taken.
    private var failure: EventStreamLimitError?

    init(base: Base, reader: ByteChunkReader<Base>, parser: ByteStreamEventParser) {
        self.base = base
        self.reader = reader
        self.parser = parser
    }

    /// The next output of the parser, reading the base as needed.
    mutating func next() async throws -> ByteStreamEventParser.Output? {
        while true {
            if let output = self.parser.next() { return output }
            if let failure = self.failure {
                self.failure = nil
                throw failure
            }
            guard !self.finished, !self.parser.isTerminated else { return nil }
            let chunk: [UInt8]?
            do {
                chunk = try await self.reader.read(&self.base)
            } catch {
                self.finished = true
                throw error
            }
            guard let chunk else {
                self.finished = true
                return nil
            }
            do {
                try self.parser.feed(chunk)
            } catch {
                // Outputs before the error in this chunk come first.
                self.finished = true
                self.failure = error
            }
        }
    }
}
