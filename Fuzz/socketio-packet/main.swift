// Fuzz target: SocketPacketDecoder (socket.io-protocol v5 packet text, and the v4 revision
// of Socket.IO 2.x servers when the first byte has bit 0x20) and, through
// SocketPacketReader, the BinaryPacketAssembler that puts BINARY_EVENT / BINARY_ACK
// attachments where their placeholders are.
//
// The input is a sequence of Engine.IO messages separated by 0xFE: the first is a text
// message; each later one is a text message when it starts with `T`, else a binary attachment.
//
// Properties: errors are typed; a decoded packet announces at most maximumAttachments and an
// ack id of at most 2^53 - 1; a completed packet holds no placeholder; encode(packet) read
// back through a fresh reader (text plus attachments) gives the same packet (numbers compared
// by value; packets holding a non-finite number excepted, see checkComplete); the reader keeps no partial packet after a complete packet or an error.
import EngineIOProtocol
import SocketIOProtocol

func sameAfterRoundTrip(_ original: JSONValue, _ again: JSONValue) -> Bool {
    switch (original, again) {
    case (.double(let value), .null): return !value.isFinite
    case (.double(let a), .int(let b)): return a == Double(b)
    case (.int(let a), .double(let b)): return Double(a) == b
    case (.double(let a), .double(let b)): return a == b
    case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(sameAfterRoundTrip)
    case (.object(let a), .object(let b)):
        let left = Array(a), right = Array(b)
        return left.count == right.count
            && zip(left, right).allSatisfy { $0.key == $1.key && sameAfterRoundTrip($0.value, $1.value) }
    default: return original == again
    }
}

func containsPlaceholder(_ value: JSONValue) -> Bool {
    switch value {
    case .object(let object):
        if object["_placeholder"] == .bool(true), case .int? = object["num"] { return true }
        return object.contains { containsPlaceholder($0.value) }
    case .array(let elements): return elements.contains(where: containsPlaceholder)
    default: return false
    }
}

func containsNonFinite(_ value: JSONValue) -> Bool {
    switch value {
    case .double(let number): return !number.isFinite
    case .array(let elements): return elements.contains(where: containsNonFinite)
    case .object(let object): return object.contains { containsNonFinite($0.value) }
    default: return false
    }
}

func checkComplete(_ packet: SocketPacket, decoder: SocketPacketDecoder) {
    if packet.type.isBinary {
        require(!(packet.data.map(containsPlaceholder) ?? false), "placeholder left in a completed packet")
    }
    require(packet.attachmentCount <= decoder.maximumAttachments, "too many attachments announced")
    if let ackID = packet.ackID { require(ackID >= 0 && ackID <= SocketPacketDecoder.maximumAckID, "ack id \(ackID)") }

    // Round trip: encode and read back. A non-finite number (`1e400` parses as infinity, as
    // in JavaScript) is written `null`, as JSON.stringify does, which may change the packet's
    // validity (`2[1e400]` -> `2[null]`): such packets are left out of the round trip.
    if let data = packet.data, containsNonFinite(data) { return }
    let encoded = SocketPacketEncoder.encode(packet)
    var reader = SocketPacketReader(decoder: SocketPacketDecoder(maximumAttachments: .max, maximumDepth: 1_000,
                                                                 revision: decoder.revision))
    do throws(SocketProtocolError) {
        var result = try reader.receive(text: encoded.text)
        for attachment in encoded.attachments {
            require(result == nil, "packet completed before its attachments")
            result = try reader.receive(binary: attachment)
        }
        guard let again = result else {
            require(false, "re-encoded packet incomplete: \(encoded.text)")
            return
        }
        let expectedType: SocketPacketType
        switch packet.type {
        case .event where !encoded.attachments.isEmpty: expectedType = .binaryEvent
        case .ack where !encoded.attachments.isEmpty: expectedType = .binaryAck
        default: expectedType = packet.type
        }
        require(again.type == expectedType, "type \(packet.type) -> \(again.type)")
        require(again.namespace == packet.namespace, "namespace \(packet.namespace) -> \(again.namespace)")
        require(again.ackID == packet.ackID, "ack id changed")
        switch (packet.data, again.data) {
        case (nil, nil): break
        case (let a?, let b?): require(sameAfterRoundTrip(a, b), "data changed: \(a) -> \(b)")
        default: require(false, "data presence changed")
        }
    } catch {
        require(false, "re-encoded packet \(encoded.text) fails: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSocketPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limits = input.byte()
    let decoder = SocketPacketDecoder(maximumAttachments: limits & 0x80 == 0 ? 1_000 : Int(limits & 0x0F),
                                      maximumDepth: limits & 0x40 == 0 ? 128 : Int(limits >> 4 & 3),
                                      revision: limits & 0x20 == 0 ? .v5 : .v4)
    let messages = input.rest().split(separator: 0xFE, omittingEmptySubsequences: false)

    // The decoder alone on the first message.
    if let first = messages.first {
        let text = String(decoding: first, as: UTF8.self)
        if case .success(let packet) = Result(catching: { () throws(SocketProtocolError) in try decoder.decode(text) }) {
            require(packet.attachmentCount <= decoder.maximumAttachments, "attachment limit not enforced")
            require(packet.type.isBinary || packet.attachmentCount == 0, "attachments on a non-binary packet")
        }
    }

    // The reader over the whole sequence.
    var reader = SocketPacketReader(decoder: decoder)
    for (index, message) in messages.enumerated() {
        let isText = index == 0 || message.first == UInt8(ascii: "T")
        do throws(SocketProtocolError) {
            let packet = isText
                ? try reader.receive(text: String(decoding: index == 0 ? message : message.dropFirst(), as: UTF8.self))
                : try reader.receive(binary: Array(message))
            if let packet {
                require(!reader.isAwaitingAttachments, "reader still waiting after a complete packet")
                checkComplete(packet, decoder: decoder)
            }
        } catch {
            require(!reader.isAwaitingAttachments, "reader kept a partial packet after an error")
        }
    }

    // socket.io-client-swift's interleaving (the SocketManager's reader): bounded, and every
    // packet it completes is as complete as the strict reader's.
    var lenient = SocketPacketReader(decoder: decoder, interleaving: .keepWaiting(limit: 4))
    for (index, message) in messages.enumerated() {
        let isText = index == 0 || message.first == UInt8(ascii: "T")
        let result = Result { () throws(SocketProtocolError) -> SocketPacket? in
            isText ? try lenient.receive(text: String(decoding: index == 0 ? message : message.dropFirst(), as: UTF8.self))
                   : try lenient.receive(binary: Array(message))
        }
        if case .success(let packet?) = result {
            checkComplete(packet, decoder: decoder)
        }
        require(lenient.waitingPackets.count <= 4, "keepWaiting reader past its limit")
        for waiting in lenient.waitingPackets {
            require(waiting.attachments.count < waiting.packet.attachmentCount, "a complete packet kept waiting")
        }
    }
    return 0
}
