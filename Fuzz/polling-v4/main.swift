// Fuzz target: Engine.IO v4 long-polling bodies (`<packet>\x1e<packet>...`): the incremental
// PollingPayloadDecoder and the whole-body EnginePollingPayload.decode.
//
// Properties: the body decoded whole and fed in fuzzer-chosen pieces gives the same packets or
// the same error; a body over maximumLength is refused (payloadTooLarge when decoded whole); decode(encode(p))
// == p for every decoded list of packets.
import EngineIOProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPollingV4(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitChoice = input.byte()
    let seed = input.uint16()
    let body = input.rest()
    let limit = limitChoice == 0 ? PollingPayloadDecoder.defaultMaximumLength : Int(limitChoice) * 4

    let whole = Result { () throws(EngineProtocolError) in try EnginePollingPayload.decode(body, maximumLength: limit) }
    let split = Result { () throws(EngineProtocolError) in
        var decoder = PollingPayloadDecoder(maximumLength: limit)
        var packets: [EnginePacket] = []
        for piece in pieces(of: body, seed: seed) { packets += try decoder.feed(piece) }
        packets += try decoder.finish()
        return packets
    }
    if body.count > limit {
        // The whole decode refuses the size first; the incremental one may meet a bad record
        // before the limit, but it must fail too.
        require(whole == .failure(.payloadTooLarge(limit: limit)), "a body over the limit was accepted")
        guard case .failure = split else {
            require(false, "the incremental decoder accepted a body over the limit")
            return 0
        }
    } else {
        require(whole == split, "whole and incremental decoding differ: \(whole) / \(split)")
    }
    if case .success(let packets) = whole {
        let encoded = EnginePollingPayload.encode(packets)
        let again = Result { () throws(EngineProtocolError) in try EnginePollingPayload.decode(encoded) }
        require(again == .success(packets), "decode(encode(p)) != p: \(packets) -> \(again)")
        require(packets.count <= body.count, "more packets than bytes")
    }
    return 0
}
