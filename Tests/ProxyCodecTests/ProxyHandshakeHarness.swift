import ProxyCodec

/// Feeds a proxy's bytes to a handshake in the three ways every decoder test uses.
enum Feeding: CustomStringConvertible, CaseIterable {
    case whole
    case byteByByte
    case splitEverywhere

    var description: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte by byte"
        case .splitEverywhere: return "split at every offset"
        }
    }
}

/// What a handshake did with one feeding of the proxy's bytes.
struct HandshakeOutcome: Equatable {
    /// Everything the client sent, in order (start included).
    var sent: [UInt8]
    /// The tunnel's first bytes (leftover plus input never fed), or the error.
    var result: Result<[UInt8], ProxyHandshakeError>
}

/// Runs `make()`'s handshake against `reply` split into `chunks`; feeds EOF when the input
/// runs out before the tunnel is established.
func run(_ make: () -> any ProxyHandshake, chunks: [[UInt8]]) -> HandshakeOutcome {
    var handshake = make()
    var sent = handshake.start()
    for (index, chunk) in chunks.enumerated() {
        do {
            let step = try handshake.receive(chunk)
            sent += step.output
            if case .established(let leftover) = step.state {
                return HandshakeOutcome(sent: sent, result: .success(leftover + chunks[(index + 1)...].flatMap { $0 }))
            }
        } catch {
            return HandshakeOutcome(sent: sent, result: .failure(error))
        }
    }
    do {
        _ = try handshake.receiveEOF()
        return HandshakeOutcome(sent: sent, result: .success([]))
    } catch {
        return HandshakeOutcome(sent: sent, result: .failure(error))
    }
}

/// Every way to feed `reply`: the outcomes must all be equal.
func outcomes(_ make: () -> any ProxyHandshake, reply: [UInt8], _ feeding: Feeding) -> [HandshakeOutcome] {
    switch feeding {
    case .whole:
        return [run(make, chunks: [reply])]
    case .byteByByte:
        return [run(make, chunks: reply.map { [$0] })]
    case .splitEverywhere:
        return (0...reply.count).map { cut in run(make, chunks: [Array(reply[..<cut]), Array(reply[cut...])]) }
    }
}
