// Fuzz target: JSONParser (RFC 8259; the Socket.IO payload and Engine.IO handshake parser)
// and its serializer.
//
// Properties: the nesting depth of a parsed value never exceeds maximumDepth; parsing bytes,
// an array slice and a String agree; serialize(parse(x)) parses back to the same value
// (numbers compared by value: JavaScript prints 1.0 as 1 and -0 as 0; non-finite numbers
// print null as JSON.stringify does) and serializing that again gives the same text; the
// parser accepts only well-formed UTF-8.
import EngineIOProtocol

func depth(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): return 1 + (elements.map(depth).max() ?? 0)
    case .object(let object): return 1 + (object.map { depth($0.value) }.max() ?? 0)
    default: return 0
    }
}

/// Equality after a serialize/parse round trip (see the file comment).
func sameAfterRoundTrip(_ original: JSONValue, _ again: JSONValue) -> Bool {
    switch (original, again) {
    case (.double(let value), .null): return !value.isFinite
    case (.double(let a), .double(let b)): return a == b
    case (.double(let a), .int(let b)): return a == Double(b) && Double(Int(exactly: a) ?? b) == a
    case (.int(let a), .double(let b)): return Double(a) == b
    case (.array(let a), .array(let b)):
        return a.count == b.count && zip(a, b).allSatisfy(sameAfterRoundTrip)
    case (.object(let a), .object(let b)):
        let left = Array(a), right = Array(b)
        return left.count == right.count
            && zip(left, right).allSatisfy { $0.key == $1.key && sameAfterRoundTrip($0.value, $1.value) }
    default: return original == again
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let depthChoice = input.byte()
    let bytes = input.rest()
    let maximumDepth = depthChoice < 128 ? Int(depthChoice % 32) : 128
    let parser = JSONParser(maximumDepth: maximumDepth)

    let fromBytes = Result { () throws(JSONParseError) in try parser.parse(bytes) }
    let padded = [UInt8(ascii: "x")] + bytes + [UInt8(ascii: "y")]
    let fromSlice = Result { () throws(JSONParseError) in try parser.parse(padded[1..<(padded.count - 1)]) }
    require(fromBytes == fromSlice, "bytes and slice parses differ")
    let isUTF8 = String(validating: bytes, as: UTF8.self) != nil
    if let text = String(validating: bytes, as: UTF8.self) {
        let fromString = Result { () throws(JSONParseError) in try parser.parse(text) }
        require(fromString == fromBytes, "String and bytes parses differ")
    }
    guard case .success(let value) = fromBytes else { return 0 }
    require(isUTF8, "invalid UTF-8 accepted")
    require(depth(value) <= maximumDepth, "depth \(depth(value)) over the limit \(maximumDepth)")

    let text = value.serializedBytes()
    require(String(validating: text, as: UTF8.self) != nil, "serializer wrote invalid UTF-8")
    let reparsed = Result { () throws(JSONParseError) in try JSONParser(maximumDepth: 1_000).parse(text) }
    guard case .success(let again) = reparsed else {
        require(false, "serialized text does not parse: \(reparsed)")
        return 0
    }
    require(sameAfterRoundTrip(value, again), "round trip changed the value: \(value) -> \(again)")
    require(again.serializedBytes() == text, "serialization is not a fixed point")
    return 0
}
