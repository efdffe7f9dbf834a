import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// ``SocketMessagePackEncoder`` and ``SocketMessagePackDecoder`` (the socket.io-msgpack-parser
/// format) against python-socketio's bytes and notepack.io's, and the reference's
/// `checkPacket` rules.
@Suite struct SocketMessagePackCodecTests {
    private func decode(_ bytes: [UInt8], decoder: SocketMessagePackDecoder = SocketMessagePackDecoder())
        -> Result<SocketPacket, SocketProtocolError>
    {
        Result { () throws(SocketProtocolError) in try decoder.decode(bytes) }
    }

    /// The packet map of `members` as bytes.
    private func map(_ members: KeyValuePairs<String, JSONValue>) throws -> [UInt8] {
        try MessagePackEncoder.encode(.object(JSONObject(members.map { ($0.key, $0.value) })))
    }

    // MARK: python-socketio

    @Test(arguments: SocketMessagePackVectors.python)
    func decodesPythonSocketIOPackets(vector: SocketMessagePackVectors.Vector) throws {
        #expect(try self.decode(vector.bytes).get() == vector.packet.packet)
    }

    @Test(arguments: SocketMessagePackVectors.python)
    func encodesAsPythonSocketIOExceptForAbsentData(vector: SocketMessagePackVectors.Vector) throws {
        let packet = vector.packet.packet
        let bytes = try SocketMessagePackEncoder.encode(packet)
        if packet.data != nil {
            #expect(bytes.hex == vector.hex)
        } else {
            // python writes `data: None`; the key is left out here (the JavaScript reference
            // refuses a DISCONNECT whose data is null).
            #expect(bytes.hex == vector.hex.replacingFirst("a464617461c0", with: "").replacingFirst("83", with: "82"))
        }
        #expect(try self.decode(bytes).get() == packet)
        #expect(try SocketMessagePackEncoder.enginePacket(packet) == .binaryMessage(bytes))
    }

    @Test(arguments: SocketMessagePackVectors.python)
    func everyTruncationFailsWithATypedError(vector: SocketMessagePackVectors.Vector) {
        let bytes = vector.bytes
        for cut in 0..<bytes.count {
            switch self.decode(Array(bytes[..<cut])) {
            case .success(let packet):
                Issue.record("prefix of \(cut) bytes decoded as \(packet)")
            case .failure(.invalidMessagePack(let error)):
                switch error.kind {
                case .unexpectedEnd, .lengthExceedsInput: break
                default: Issue.record("prefix of \(cut) bytes: \(error)")
                }
            case .failure(let error):
                Issue.record("prefix of \(cut) bytes: \(error)")
            }
        }
    }

    // MARK: Binary packets

    @Test func binaryEventAndAckAreWrittenAsEventAndAck() throws {
        let event = SocketPacket(type: .binaryEvent, ackID: 1, data: ["up", .binary([9])], attachmentCount: 1)
        #expect(try SocketMessagePackEncoder.encode(event).hex == "84a47479706502a46461746192a27570c40109a36e7370a12fa2696401")
        #expect(try self.decode(SocketMessagePackEncoder.encode(event)).get() == SocketPacket(type: .event, ackID: 1, data: ["up", .binary([9])]))
        let ack = SocketPacket(type: .binaryAck, namespace: "/a", ackID: 2, data: [.binary([])])
        #expect(
            try self.decode(SocketMessagePackEncoder.encode(ack)).get() == SocketPacket(type: .ack, namespace: "/a", ackID: 2, data: [.binary([])]))
    }

    @Test(arguments: [5, 6, 7, 255])
    func binaryAndUnknownTypesAreRefusedAsTheReferenceDoes(type: Int) throws {
        let bytes = try self.map(["type": .int(type), "data": ["e"], "nsp": "/"])
        #expect(self.decode(bytes) == .failure(.unknownPacketType(UInt8(type))))
    }

    // MARK: notepack.io

    @Test func javaScriptServerConnectReplyWithUndefinedPid() throws {
        let bytes = [UInt8](hex: MessagePackVectors.notepack[0].hex)
        #expect(try self.decode(bytes).get() == SocketPacket(type: .connect, data: ["sid": "abc"]))
    }

    @Test func javaScriptClientPacketsWithUndefinedDataAndOptions() throws {
        #expect(try self.decode([UInt8](hex: MessagePackVectors.notepack[1].hex)).get() == SocketPacket(type: .connect, namespace: "/admin"))
        #expect(
            try self.decode([UInt8](hex: MessagePackVectors.notepack[2].hex)).get()
                == SocketPacket(type: .event, ackID: 3, data: ["hi", nil])
        )
        #expect(
            try self.decode([UInt8](hex: MessagePackVectors.notepack[3].hex)).get()
                == SocketPacket(type: .ack, ackID: 7, data: ["2020-01-02T03:04:05.678Z"])
        )
    }

    @Test func integralFloatTypeAndIDCountAsIntegers() throws {
        let bytes = try self.map(["type": .double(2), "nsp": "/", "data": ["e"], "id": .double(4)])
        #expect(try self.decode(bytes).get() == SocketPacket(type: .event, ackID: 4, data: ["e"]))
    }

    @Test func theLastOfRepeatedKeysCounts() throws {
        let bytes = try self.map(["type": 1, "nsp": "/x", "type": 2, "data": ["e"], "nsp": "/y"])
        #expect(try self.decode(bytes).get() == SocketPacket(type: .event, namespace: "/y", data: ["e"]))
    }

    // MARK: Invalid packets

    static let invalidPackets: [(JSONValue, SocketProtocolError)] = {
        var cases: [(JSONValue, SocketProtocolError)] = []
        cases.append((JSONValue.array([0, "/"]), SocketProtocolError.packetNotAMap))
        cases.append(("packet" as JSONValue, .packetNotAMap))
        cases.append((["nsp": "/"] as JSONValue, .invalidPacketField("type")))
        cases.append((["type": "2", "nsp": "/", "data": ["e"]] as JSONValue, .invalidPacketField("type")))
        cases.append((["type": 2.5, "nsp": "/", "data": ["e"]] as JSONValue, .invalidPacketField("type")))
        cases.append((["type": -1, "nsp": "/", "data": ["e"]] as JSONValue, .invalidPacketField("type")))
        cases.append((["type": 256, "nsp": "/", "data": ["e"]] as JSONValue, .invalidPacketField("type")))
        cases.append((["type": nil, "nsp": "/"] as JSONValue, .invalidPacketField("type")))
        cases.append((["type": 2, "data": ["e"]] as JSONValue, .invalidPacketField("nsp")))
        cases.append((["type": 2, "nsp": 1, "data": ["e"]] as JSONValue, .invalidPacketField("nsp")))
        cases.append((["type": 2, "nsp": nil, "data": ["e"]] as JSONValue, .invalidPacketField("nsp")))
        cases.append((["type": 2, "nsp": "/"] as JSONValue, .invalidPayload(.event)))
        cases.append((["type": 2, "nsp": "/", "data": []] as JSONValue, .invalidPayload(.event)))
        cases.append((["type": 2, "nsp": "/", "data": [nil]] as JSONValue, .invalidPayload(.event)))
        cases.append((["type": 2, "nsp": "/", "data": ["e": 1]] as JSONValue, .invalidPayload(.event)))
        cases.append((["type": 3, "nsp": "/", "data": "ok"] as JSONValue, .invalidPayload(.ack)))
        cases.append((["type": 0, "nsp": "/", "data": ["a"]] as JSONValue, .invalidPayload(.connect)))
        cases.append((["type": 0, "nsp": "/", "data": "token"] as JSONValue, .invalidPayload(.connect)))
        cases.append((["type": 1, "nsp": "/", "data": ["sid": "x"]] as JSONValue, .invalidPayload(.disconnect)))
        cases.append((["type": 4, "nsp": "/", "data": [1]] as JSONValue, .invalidPayload(.connectError)))
        cases.append((["type": 4, "nsp": "/"] as JSONValue, .invalidPayload(.connectError)))
        cases.append((["type": 2, "nsp": "/", "data": ["e"], "id": -1] as JSONValue, .invalidAckID))
        cases.append((["type": 2, "nsp": "/", "data": ["e"], "id": 9_007_199_254_740_992] as JSONValue, .invalidAckID))
        cases.append((["type": 2, "nsp": "/", "data": ["e"], "id": "1"] as JSONValue, .invalidAckID))
        cases.append((["type": 2, "nsp": "/", "data": ["e"], "id": 1.5] as JSONValue, .invalidAckID))
        cases.append((["type": 2, "nsp": "/", "data": ["e"], "id": nil] as JSONValue, .invalidAckID))
        return cases
    }()

    @Test(arguments: Self.invalidPackets)
    func invalidPacketsFailWithTheFieldThatIsWrong(value: JSONValue, error: SocketProtocolError) throws {
        #expect(self.decode(try MessagePackEncoder.encode(value)) == .failure(error))
    }

    @Test func numericEventNamesFollowTheDecoderOption() throws {
        let bytes = try self.map(["type": 2, "nsp": "/", "data": [1, "x"]])
        #expect(try self.decode(bytes).get() == SocketPacket(type: .event, data: [1, "x"]))
        let strict = SocketMessagePackDecoder(requiresStringEventName: true)
        #expect(self.decode(bytes, decoder: strict) == .failure(.invalidPayload(.event)))
    }

    @Test func invalidMessagePackIsWrapped() {
        #expect(self.decode([0xc1]) == .failure(.invalidMessagePack(MessagePackDecodingError(.reservedFormat, at: 0))))
        #expect(self.decode([0x81, 0x01, 0x02]) == .failure(.invalidMessagePack(MessagePackDecodingError(.nonStringKey(format: 1), at: 1))))
        #expect(self.decode([0xd4, 0, 0]) == .failure(.invalidMessagePack(MessagePackDecodingError(.undefinedValue, at: 0))))
    }

    // MARK: Limits

    @Test func payloadDepthCountsAsOnTheJSONPath() throws {
        // data [[ "e" ]]: depth 2 on the JSON path (`2[["e"]]` needs maximumDepth 2).
        let bytes = try self.map(["type": 3, "nsp": "/", "data": [["e"]]])
        #expect(try self.decode(bytes, decoder: SocketMessagePackDecoder(maximumDepth: 2)).get().data == [["e"]])
        guard case .failure(.invalidMessagePack(let error)) = self.decode(bytes, decoder: SocketMessagePackDecoder(maximumDepth: 1)) else {
            Issue.record("depth limit not enforced")
            return
        }
        #expect(error.kind == .depthLimitExceeded(limit: 2))
        #expect(try SocketPacketDecoder(maximumDepth: 2).decode(#"3[["e"]]"#).data == [["e"]])
        #expect(throws: SocketProtocolError.self) { try SocketPacketDecoder(maximumDepth: 1).decode(#"3[["e"]]"#) }
        // An unlimited depth does not overflow.
        #expect(try self.decode(bytes, decoder: SocketMessagePackDecoder(maximumDepth: .max)).get().data == [["e"]])
    }

    @Test func packetsOverTheSizeLimitAreRefusedBeforeDecoding() throws {
        let bytes = try SocketMessagePackEncoder.encode(SocketPacket(type: .event, data: ["e", .binary(Array(repeating: 1, count: 100))]))
        let decoder = SocketMessagePackDecoder(maximumPacketSize: bytes.count - 1)
        #expect(
            self.decode(bytes, decoder: decoder)
                == .failure(.invalidMessagePack(MessagePackDecodingError(.sizeLimitExceeded(limit: bytes.count - 1), at: 0))))
        #expect(try self.decode(bytes, decoder: SocketMessagePackDecoder(maximumPacketSize: bytes.count)).get().data?.arrayValue?.count == 2)
    }

    @Test func hugeLengthHeadersInsideThePacketFailBeforeAllocating() {
        // {type: 2, nsp: "/", data: bin 32 of 4 GiB - 1 with 1 byte present}
        let bytes = [UInt8](hex: "83a47479706502a36e7370a12fa464617461c6ffffffff00")
        guard case .failure(.invalidMessagePack(let error)) = self.decode(bytes) else {
            Issue.record("decoded")
            return
        }
        #expect(error.kind == .lengthExceedsInput(declared: 0xffff_ffff))
    }

    @Test func emptyNamespaceIsWrittenAsTheMainNamespace() throws {
        let bytes = try SocketMessagePackEncoder.encode(SocketPacket(type: .event, namespace: "", data: ["e"]))
        #expect(try self.decode(bytes).get().namespace == "/")
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        let characters = Array(self)
        let pattern = Array(target)
        guard pattern.count <= characters.count else { return self }
        for start in 0...(characters.count - pattern.count) where Array(characters[start..<start + pattern.count]) == pattern {
            return String(characters[..<start]) + replacement + String(characters[(start + pattern.count)...])
        }
        return self
    }
}
