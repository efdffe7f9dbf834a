// Fuzz target: MessagePackDecoder (the MessagePack formats, notepack.io's extensions) and
// SocketMessagePackDecoder (the socket.io-msgpack-parser packet map) on untrusted bytes.
//
// The first input byte chooses the limits (bit 0x80: depth 0-7 from bits 0-2 instead of 128;
// bit 0x40: a size limit of 0-63 bytes from bits 0-5 instead of 16 MiB); the rest is one
// binary Engine.IO message.
//
// Properties: errors are typed; a decoded value nests no deeper than maximumDepth, comes from
// no more than maximumSize bytes, and holds no string that is not valid UTF-8 (Swift strings
// are); re-encoding it decodes to the same value (numbers by value: an integral double is
// written as an integer, as notepack.io does) and the encoding is a fixed point; a strict prefix
// of an accepted input fails with unexpectedEnd or lengthExceedsInput (MessagePack values are
// self-delimiting); a decoded packet has a type 0-4, an ack id in 0...2^53-1, no attachments,
// a payload of its type's shape, and encode(packet) decodes to the same packet.
import EngineIOProtocol
import SocketIOProtocol

func sameValue(_ original: JSONValue, _ again: JSONValue) -> Bool {
    switch (original, again) {
    case (.double(let a), .int(let b)): return a == Double(b)
    case (.int(let a), .double(let b)): return Double(a) == b
    case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
    case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(sameValue)
    case (.object(let a), .object(let b)):
        let left = Array(a), right = Array(b)
        return left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key && sameValue($0.value, $1.value) }
    default: return original == again
    }
}

func depth(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): return 1 + (elements.map(depth).max() ?? 0)
    case .object(let object): return 1 + (object.map { depth($0.value) }.max() ?? 0)
    default: return 0
    }
}

func checkRoundTrip(_ value: JSONValue) {
    let encoded: [UInt8]
    do throws(MessagePackEncodingError) {
        encoded = try MessagePackEncoder.encode(value)
    } catch {
        require(false, "a decoded value does not encode: \(error)")
        return
    }
    let unlimited = MessagePackDecoder(maximumDepth: .max, maximumSize: .max)
    do throws(MessagePackDecodingError) {
        let again = try unlimited.decode(encoded)
        require(sameValue(value, again), "round trip changed \(value) into \(again)")
        let twice = try? MessagePackEncoder.encode(again)
        require(twice == encoded, "the encoding is not a fixed point")
    } catch {
        require(false, "the re-encoded value fails: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSocketMessagePack(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let maximumDepth = flags & 0x80 == 0 ? 128 : Int(flags & 0x07)
    let maximumSize = flags & 0x40 == 0 ? 16 << 20 : Int(flags & 0x3f)
    let bytes = input.rest()

    // The value decoder.
    let decoder = MessagePackDecoder(maximumDepth: maximumDepth, maximumSize: maximumSize)
    if case .success(let value) = Result(catching: { () throws(MessagePackDecodingError) in try decoder.decode(bytes) }) {
        require(bytes.count <= maximumSize, "size limit not enforced")
        require(depth(value) <= maximumDepth, "depth limit not enforced")
        checkRoundTrip(value)
        if !bytes.isEmpty {
            let cut = Int(flags) % bytes.count
            switch Result(catching: { () throws(MessagePackDecodingError) in try decoder.decode(bytes[..<cut]) }) {
            case .success: require(false, "a strict prefix of \(cut) bytes decoded")
            case .failure(let error):
                switch error.kind {
                case .unexpectedEnd, .lengthExceedsInput: break
                default: require(false, "a strict prefix failed with \(error)")
                }
            }
        }
    }

    // The packet decoder.
    let packets = SocketMessagePackDecoder(maximumDepth: maximumDepth, maximumPacketSize: maximumSize)
    if case .success(let packet) = Result(catching: { () throws(SocketProtocolError) in try packets.decode(bytes) }) {
        require(packet.type.rawValue <= 4, "packet type \(packet.type)")
        require(packet.attachmentCount == 0, "attachments announced")
        if let ackID = packet.ackID { require(ackID >= 0 && ackID <= SocketPacketDecoder.maximumAckID, "ack id \(ackID)") }
        require(packet.data.map(depth) ?? 0 <= maximumDepth, "payload depth limit not enforced")
        switch (packet.type, packet.data) {
        case (.disconnect, nil), (.connect, nil), (.connect, .object?), (.connectError, .object?), (.connectError, .string?),
            (.event, .array?), (.ack, .array?):
            break
        default: require(false, "payload of the wrong shape for \(packet.type)")
        }
        do {
            let encoded = try SocketMessagePackEncoder.encode(packet)
            let again = try SocketMessagePackDecoder(maximumDepth: .max, maximumPacketSize: .max).decode(encoded)
            let namespace = packet.namespace.isEmpty ? "/" : packet.namespace  // an empty nsp is written "/"
            require(again.type == packet.type && again.namespace == namespace && again.ackID == packet.ackID,
                    "packet header changed: \(packet) -> \(again)")
            switch (packet.data, again.data) {
            case (nil, nil): break
            case (let a?, let b?): require(sameValue(a, b), "data changed: \(a) -> \(b)")
            default: require(false, "data presence changed")
            }
        } catch {
            require(false, "re-encoded packet fails: \(error)")
        }
    }
    return 0
}
