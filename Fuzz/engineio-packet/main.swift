// Fuzz target: one Engine.IO packet as each transport carries it: a polling record (text or
// `b<base64>`), a WebSocket text frame, a WebSocket binary frame in v3 and v4, and Base64.
//
// Properties: decode(encode(p)) == p for the polling record form and for the WebSocket frame
// form of both revisions; a text packet keeps its data byte for byte (type digits with data
// dropped excepted); Base64 decodes what it encodes; errors are typed, never traps.
import EngineIOProtocol
import RealtimeEncoding

func checkRoundTrips(_ packet: EnginePacket) {
    var record: [UInt8] = []
    packet.appendPollingRecord(to: &record)
    let again = record.withUnsafeBufferPointer { buffer in
        Result { () throws(EngineProtocolError) in try EnginePacket(pollingRecord: buffer) }
    }
    require(again == .success(packet), "polling record round trip: \(packet) -> \(again)")
    for version in [EngineProtocolVersion.v3, .v4] {
        let frame = packet.webSocketFrame(version: version)
        let decoded = Result { () throws(EngineProtocolError) in try EnginePacket(webSocketFrame: frame, version: version) }
        require(decoded == .success(packet), "WebSocket v\(version.rawValue) round trip: \(packet) -> \(decoded)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnginePacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // Polling record (v4 polling bodies carry these between 0x1E separators).
    let record = bytes.withUnsafeBufferPointer { buffer in
        Result { () throws(EngineProtocolError) in try EnginePacket(pollingRecord: buffer) }
    }
    if case .success(let packet) = record {
        checkRoundTrips(packet)
        if case .binaryMessage = packet {
            require(bytes.first == UInt8(ascii: "b"), "binary packet from a text record")
        } else if let text = packet.textData, !text.isEmpty {
            require(Array(text.utf8) == Array(bytes.dropFirst()), "text packet data changed")
        }
    }

    // WebSocket text frame (the connection hands over valid UTF-8 text).
    let text = String(decoding: bytes, as: UTF8.self)
    if case .success(let packet) = Result(catching: { () throws(EngineProtocolError) in try EnginePacket(webSocketText: text) }) {
        checkRoundTrips(packet)
    }

    // WebSocket binary frame, both revisions.
    for version in [EngineProtocolVersion.v3, .v4] {
        let result = Result { () throws(EngineProtocolError) in
            try EnginePacket(webSocketFrame: .binary(bytes), version: version)
        }
        if case .success(let packet) = result {
            guard case .binaryMessage(let payload) = packet else {
                require(false, "binary frame decoded to \(packet)")
                return 0
            }
            require(payload == (version == .v3 ? Array(bytes.dropFirst()) : bytes), "binary payload changed")
            checkRoundTrips(packet)
        }
    }

    // Base64 (the `b` records of both polling forms).
    if let decoded = Base64.decode(text) {
        let encoded = Base64.encodedString(decoded)
        require(Base64.decode(encoded) == decoded, "Base64 round trip")
        require(decoded.count <= bytes.count, "Base64 decoded larger than its text")
    }
    return 0
}
