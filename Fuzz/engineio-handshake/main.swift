// Fuzz target: EngineHandshake(jsonText:), the `open` packet's JSON (engine.io-protocol v3/v4
// "Handshake"), reached from a polling body or a WebSocket frame the server sends.
//
// Properties: errors are typed (invalidHandshake), never a trap, whatever the numbers
// (huge, negative, fractional pingInterval/pingTimeout/maxPayload); an accepted handshake has
// a non-empty sid, intervals between 0 and one day and a positive-or-nil maxPayload; the accepted
// handshake reads the same from the JSON the serializer writes back.
import EngineIOProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngineHandshake(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let result = Result { () throws(EngineProtocolError) in try EngineHandshake(jsonText: text) }
    switch result {
    case .failure(let error):
        guard case .invalidHandshake = error else {
            require(false, "unexpected error \(error)")
            return 0
        }
    case .success(let handshake):
        require(!handshake.sid.isEmpty, "empty sid accepted")
        require(handshake.pingInterval >= .zero && handshake.pingTimeout >= .zero, "negative interval accepted")
        require(handshake.pingInterval <= .seconds(86_400) && handshake.pingTimeout <= .seconds(86_400),
                "interval over one day accepted")
        if let maxPayload = handshake.maxPayload { require(maxPayload >= 0, "negative maxPayload \(maxPayload)") }
        // The same handshake through the serializer (what a server written with our JSON sends).
        if let value = try? JSONParser(maximumDepth: 8).parse(text) {
            let again = Result { () throws(EngineProtocolError) in try EngineHandshake(jsonText: value.serializedString()) }
            // A maxPayload past 2^53 is not exact in a JSON number (a double, as in JavaScript):
            // the integer the serializer writes back may differ from the first reading in the
            // low digits (found by fuzz-smoke: 9220000001346126261.53). Compare those within
            // one part in 2^52; everything else exactly.
            if let first = handshake.maxPayload, first > 1 << 53, case .success(let second) = again,
               let other = second.maxPayload {
                var relaxed = second
                relaxed.maxPayload = first
                require(relaxed == handshake && abs(Double(other) - Double(first)) <= Double(first) / Double(1 << 52),
                        "handshake reads differently after a JSON round trip: \(again)")
            } else {
                require(again == .success(handshake), "handshake reads differently after a JSON round trip: \(again)")
            }
        }
    }
    return 0
}
