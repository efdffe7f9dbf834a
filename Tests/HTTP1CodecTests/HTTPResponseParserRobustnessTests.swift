import TestSupport
import Testing

@testable import HTTP1Codec

/// Mutated and random inputs: the parser must end every input with events or a typed error,
/// never trap, and keep its buffer within the limits.
@Suite struct HTTPResponseParserRobustnessTests {
    @Test(arguments: 0..<8)
    func mutatedResponsesNeverTrap(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed) &* 7919)
        let limits = HTTPParserLimits(maxHeaderBytes: 512, maxHeaderCount: 16, maxChunkSizeLineBytes: 64)
        let alphabet =
            Array("HTTP/1.1 200 OK\r\n:;0123456789abcdefABCDEF \tTransfer-Encoding: chunked\nContent-Length".utf8)
            + [0, 0x7F, 0xFF]
        for vector in HTTPResponseParserTests.vectors {
            var bytes = Array(vector.input.utf8)
            for _ in 0..<40 {
                var mutated = bytes
                let edits = Int.random(in: 1...4, using: &random)
                for _ in 0..<edits where !mutated.isEmpty {
                    let index = Int.random(in: 0..<mutated.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: mutated[index] = alphabet.randomElement(using: &random) ?? 0
                    case 1: mutated.remove(at: index)
                    default: mutated.insert(alphabet.randomElement(using: &random) ?? 0, at: index)
                    }
                }
                var parser = HTTPResponseParser(limits: limits)
                var offset = 0
                var failed = false
                while offset < mutated.count && !failed {
                    let end = min(mutated.count, offset + Int.random(in: 1...16, using: &random))
                    parser.append(mutated[offset..<end])
                    offset = end
                    do {
                        var events = 0
                        while try parser.next() != nil {
                            events += 1
                            #expect(events < 10_000)
                        }
                    } catch {
                        failed = true
                    }
                    #expect(failed || parser.bufferedByteCount <= 512 + 16)
                }
                if !failed {
                    var events = 0
                    while (try? parser.finish()) ?? nil != nil {
                        events += 1
                        if events > 10_000 { break }
                    }
                    #expect(events <= 10_000)
                }
                bytes = mutated.count < 4096 ? mutated : bytes
            }
        }
    }
}
