// Fuzz target: Engine.IO v3 long-polling bodies, text form (`<length>:<packet>...`, lengths in
// UTF-16 units or UTF-8 bytes, `b4<base64>` binary) and binary (XHR2) form
// (`<0|1><digits><0xFF><packet>...`).
//
// Properties: errors are typed (no trap, no overflow on long digit runs); a body over
// maximumLength is refused; decode(encode(p)) == p for every decoded list of packets; the v4
// and v3 encodings of the same packets decode to the same packets.
import EngineIOProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPollingV3(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limitChoice = input.byte()
    let body = input.rest()
    let limit = limitChoice == 0 ? PollingPayloadDecoder.defaultMaximumLength : Int(limitChoice) * 4

    let decoded = Result { () throws(EngineProtocolError) in try EnginePollingPayloadV3.decode(body, maximumLength: limit) }
    if body.count > limit {
        require(decoded == .failure(.payloadTooLarge(limit: limit)), "a body over the limit was accepted")
    }
    guard case .success(let packets) = decoded else { return 0 }
    require(packets.count <= body.count, "more packets than bytes")
    let encoded = EnginePollingPayloadV3.encode(packets)
    let again = Result { () throws(EngineProtocolError) in try EnginePollingPayloadV3.decode(encoded) }
    require(again == .success(packets), "decode(encode(p)) != p: \(packets) -> \(again)")
    return 0
}
