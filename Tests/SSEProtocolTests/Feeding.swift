@testable import SSEProtocol

/// The ways every decoder test feeds its input: whole, byte by byte, and split in two at
/// every offset.
enum Feeding {
    static func chunkings(_ bytes: [UInt8]) -> [[[UInt8]]] {
        var result: [[[UInt8]]] = [[bytes], bytes.map { [$0] }]
        if bytes.count > 1 {
            for offset in 1..<bytes.count {
                result.append([Array(bytes[..<offset]), Array(bytes[offset...])])
            }
        }
        return result
    }

    /// Everything `chunks` produce, and the error that stopped parsing, if any.
    static func parse(
        _ chunks: [[UInt8]], configuration: SSEParser.Configuration = .init(),
        parser existing: SSEParser? = nil
    ) -> (outputs: [SSEParser.Output], error: SSEParserError?, parser: SSEParser) {
        var parser = existing ?? SSEParser(configuration: configuration)
        var outputs: [SSEParser.Output] = []
        for chunk in chunks {
            do {
                try parser.feed(chunk) { outputs.append($0) }
            } catch {
                return (outputs, error, parser)
            }
        }
        return (outputs, nil, parser)
    }
}

extension Array where Element == UInt8 {
    /// The UTF-8 bytes of `text`.
    init(utf8 text: String) { self = Array(text.utf8) }
}
