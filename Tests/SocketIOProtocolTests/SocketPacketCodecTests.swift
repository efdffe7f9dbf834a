import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// Vectors from socket.io-protocol v5, "Packet encoding" / "Examples" and "Sample session".
@Suite struct SocketPacketCodecTests {
    static let vectors: [(SocketPacket, String)] = [
        (SocketPacket(type: .connect), "0"),
        (
            SocketPacket(type: .connect, namespace: "/admin", data: ["sid": "oSO0OpakMV_3jnilAAAA"]),
            #"0/admin,{"sid":"oSO0OpakMV_3jnilAAAA"}"#
        ),
        (SocketPacket(type: .connect, data: ["token": "x"]), #"0{"token":"x"}"#),
        (SocketPacket(type: .connect, namespace: "/admin"), "0/admin,"),
        (SocketPacket(type: .connectError, data: ["message": "Not authorized"]), #"4{"message":"Not authorized"}"#),
        (
            SocketPacket(type: .connectError, namespace: "/admin", data: ["message": "forbidden", "data": ["code": 3]]),
            #"4/admin,{"message":"forbidden","data":{"code":3}}"#
        ),
        (SocketPacket(type: .event, data: ["foo"]), #"2["foo"]"#),
        (SocketPacket(type: .event, namespace: "/admin", data: ["bar"]), #"2/admin,["bar"]"#),
        (SocketPacket(type: .event, data: ["e", 1]), #"2["e",1]"#),
        (SocketPacket(type: .event, ackID: 12, data: ["foo"]), #"212["foo"]"#),
        (SocketPacket(type: .ack, namespace: "/admin", ackID: 13, data: ["bar"]), #"3/admin,13["bar"]"#),
        (SocketPacket(type: .ack, ackID: 12, data: []), "312[]"),
        (SocketPacket(type: .event, namespace: "/admin", ackID: 1, data: ["tellme"]), #"2/admin,1["tellme"]"#),
        (SocketPacket(type: .event, data: ["hey", "Jude"]), #"2["hey","Jude"]"#),
        (SocketPacket(type: .disconnect), "1"),
        (SocketPacket(type: .disconnect, namespace: "/admin"), "1/admin,"),
        (
            SocketPacket(type: .event, data: ["chat", ["text": "héllo \"q\"", "n": 1.5, "ok": true, "none": nil]]),
            #"2["chat",{"text":"héllo \"q\"","n":1.5,"ok":true,"none":null}]"#
        ),
    ]

    @Test(arguments: Self.vectors)
    func encodesCanonicalText(packet: SocketPacket, text: String) {
        let encoded = SocketPacketEncoder.encode(packet)
        #expect(encoded.text == text)
        #expect(encoded.attachments.isEmpty)
        #expect(encoded.enginePackets == [.message(text)])
    }

    @Test(arguments: Self.vectors)
    func decodesCanonicalText(packet: SocketPacket, text: String) throws {
        #expect(try SocketPacketDecoder().decode(text) == packet)
    }

    /// In place, as the engine hands it over: the Engine.IO message after its `4`, a substring
    /// that does not start where its string does (well-formed and malformed alike), decodes as
    /// the packet's own string does, through the decoder and through the reader.
    @Test(arguments: Self.vectors.map(\.1) + Self.malformed.map(\.0))
    func decodesThePacketInsideAnEngineMessage(text: String) {
        let message = "4" + text
        #expect(
            Result { () throws(SocketProtocolError) in try SocketPacketDecoder().decode(message.dropFirst()) }
                == Result { () throws(SocketProtocolError) in try SocketPacketDecoder().decode(text) })
        var inPlace = SocketPacketReader()
        var copied = SocketPacketReader()
        #expect(
            Result { () throws(SocketProtocolError) in try inPlace.receive(text: message.dropFirst()) }
                == Result { () throws(SocketProtocolError) in try copied.receive(text: text) })
    }

    /// Texts produced by python-socketio 5.18.1 `Packet.encode()` (checked once against the pinned
    /// peer): `json.dumps` escapes non-ASCII and prints floats as `1.0`, `1e+21`, `1e-07`.
    @Test func decodesPythonSocketIOOutput() throws {
        let decoder = SocketPacketDecoder()
        #expect(
            try decoder.decode(#"2["e",1,2.5,true,null,"\u00e9\ud83d\ude00",{"k":[1.0,1e+21,1e-07]}]"#)
                == SocketPacket(type: .event, data: ["e", 1, 2.5, true, nil, "é😀", ["k": [1.0, 1e21, 1e-7]]]))
        #expect(try decoder.decode("30[]") == SocketPacket(type: .ack, ackID: 0, data: []))
        #expect(
            try decoder.decode(#"4{"message":"unauthorized","data":{"a":1}}"#)
                == SocketPacket(type: .connectError, data: ["message": "unauthorized", "data": ["a": 1]]))
        // python-socketio's binary encoding matches ours byte for byte.
        let text = #"52-/admin,7["bin",{"_placeholder":true,"num":0},{"x":{"_placeholder":true,"num":1}}]"#
        let encoded = SocketPacketEncoder.encode(
            SocketPacket(
                type: .event, namespace: "/admin", ackID: 7,
                data: ["bin", .binary([1, 2]), ["x": .binary([3])]]))
        #expect(encoded.text == text)
        #expect(encoded.attachments == [[1, 2], [3]])
        // As does its Engine.IO payload: `4hello\x1e2\x1ebAQIDBA==`.
        #expect(
            EnginePollingPayload.encode([.message("hello"), .ping(""), .binaryMessage([1, 2, 3, 4])])
                == Array("4hello\u{1E}2\u{1E}bAQIDBA==".utf8))
    }

    // MARK: Binary

    @Test func encodesBinaryEventWithPlaceholders() {
        let packet = SocketPacket(type: .event, data: ["baz", .binary([1, 2, 3, 4])])
        let encoded = SocketPacketEncoder.encode(packet)
        #expect(encoded.text == #"51-["baz",{"_placeholder":true,"num":0}]"#)
        #expect(encoded.attachments == [[1, 2, 3, 4]])
        #expect(encoded.enginePackets == [.message(encoded.text), .binaryMessage([1, 2, 3, 4])])
    }

    @Test func encodesMultipleAttachmentsInTraversalOrder() {
        let packet = SocketPacket(
            type: .event, namespace: "/admin",
            data: ["baz", .binary([1, 2]), ["nested": [.binary([3, 4])]], .binary([5])])
        let encoded = SocketPacketEncoder.encode(packet)
        #expect(
            encoded.text
                == #"53-/admin,["baz",{"_placeholder":true,"num":0},{"nested":[{"_placeholder":true,"num":1}]},{"_placeholder":true,"num":2}]"#)
        #expect(encoded.attachments == [[1, 2], [3, 4], [5]])
    }

    @Test func encodesBinaryAck() {
        let packet = SocketPacket(type: .ack, ackID: 15, data: ["bar", .binary([1, 2, 3, 4])])
        let encoded = SocketPacketEncoder.encode(packet)
        #expect(encoded.text == #"61-15["bar",{"_placeholder":true,"num":0}]"#)
        #expect(encoded.attachments == [[1, 2, 3, 4]])
    }

    @Test func decodesAndAssemblesTheSampleSessionBinaryAck() throws {
        let packet = try SocketPacketDecoder().decode(#"61-/admin,1[{"_placeholder":true,"num":0}]"#)
        #expect(
            packet
                == SocketPacket(
                    type: .binaryAck, namespace: "/admin", ackID: 1,
                    data: [["_placeholder": true, "num": 0]], attachmentCount: 1))
        var assembler = try BinaryPacketAssembler(packet: packet)
        #expect(assembler.remainingAttachments == 1)
        #expect(assembler.packetIfComplete() == nil)
        let assembled = try assembler.append([9, 8])
        #expect(
            assembled
                == SocketPacket(
                    type: .binaryAck, namespace: "/admin", ackID: 1,
                    data: [.binary([9, 8])], attachmentCount: 1))
        #expect(assembler.remainingAttachments == 0)
        #expect(throws: SocketProtocolError.unexpectedAttachment) { try assembler.append([1]) }
    }

    @Test func binaryRoundTripThroughEncoderDecoderAndAssembler() throws {
        let original = SocketPacket(
            type: .event, namespace: "/x", ackID: 7,
            data: ["up", .binary([0, 255]), ["k": .binary([])], .binary([1])])
        let encoded = SocketPacketEncoder.encode(original)
        let decoded = try SocketPacketDecoder().decode(encoded.text)
        #expect(decoded.attachmentCount == 3)
        var assembler = try BinaryPacketAssembler(packet: decoded)
        var result: SocketPacket?
        for attachment in encoded.attachments {
            #expect(result == nil)
            result = try assembler.append(attachment)
        }
        var expected = original
        expected.type = .binaryEvent
        expected.attachmentCount = 3
        #expect(result == expected)
    }

    @Test func placeholdersMayRepeatAnIndexAndOrderIsByNum() throws {
        let packet = try SocketPacketDecoder().decode(
            #"52-["e",{"_placeholder":true,"num":1},{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
        var assembler = try BinaryPacketAssembler(packet: packet)
        #expect(try assembler.append([0]) == nil)
        let assembled = try #require(try assembler.append([1]))
        #expect(assembled.data == ["e", .binary([1]), .binary([0]), .binary([1])])
    }

    /// Each placeholder is delivered as a copy of its attachment, so the budget counts an
    /// attachment once per placeholder: a hostile server's 500,000 placeholders naming one
    /// 1 MiB attachment are refused, not turned into 500 GB.
    @Test func theByteBudgetCountsAnAttachmentOncePerPlaceholder() throws {
        let placeholders = Array(repeating: #"{"_placeholder":true,"num":0}"#, count: 1_000).joined(separator: ",")
        let packet = try SocketPacketDecoder().decode(#"51-["e",\#(placeholders)]"#)
        var assembler = try BinaryPacketAssembler(packet: packet, maximumBytes: 64_000)
        #expect(throws: SocketProtocolError.attachmentsTooLarge(limit: 64_000)) {
            try assembler.append([UInt8](repeating: 1, count: 65))
        }
        // 64 bytes a thousand times fit.
        var fitting = try BinaryPacketAssembler(packet: packet, maximumBytes: 64_000)
        let assembled = try #require(try fitting.append([UInt8](repeating: 1, count: 64)))
        #expect(assembled.data?.arrayValue?.count == 1_001)
    }

    /// Attachments no placeholder names still count (once each), so a packet that announces
    /// 1,000 of them cannot make the client hold 1,000 large messages.
    @Test func theByteBudgetCountsUnnamedAttachments() throws {
        let packet = try SocketPacketDecoder().decode(#"53-["e"]"#)
        var assembler = try BinaryPacketAssembler(packet: packet, maximumBytes: 100)
        #expect(try assembler.append([UInt8](repeating: 1, count: 60)) == nil)
        #expect(assembler.bufferedBytes == 60)
        #expect(throws: SocketProtocolError.attachmentsTooLarge(limit: 100)) {
            try assembler.append([UInt8](repeating: 2, count: 41))
        }
        #expect(BinaryPacketAssembler.defaultMaximumBytes == 64 << 20)
    }

    @Test func zeroAttachmentBinaryPacketCompletesImmediately() throws {
        let packet = try SocketPacketDecoder().decode(#"50-["e",1]"#)
        var assembler = try BinaryPacketAssembler(packet: packet)
        #expect(assembler.remainingAttachments == 0)
        #expect(assembler.packetIfComplete() == packet)
        #expect(throws: SocketProtocolError.unexpectedAttachment) { try assembler.append([1]) }
    }

    @Test(arguments: [
        #"51-["e",{"_placeholder":true,"num":1}]"#,
        #"51-["e",{"_placeholder":true,"num":-1}]"#,
        #"51-["e",{"_placeholder":true,"num":"0"}]"#,
        #"51-["e",{"_placeholder":true}]"#,
        #"51-["e",{"_placeholder":true,"num":0.5}]"#,
        #"50-["e",{"_placeholder":true,"num":0}]"#,
        #"51-["e",[{"x":{"_placeholder":true,"num":3}}]]"#,
    ])
    func rejectsPlaceholdersOutsideTheAttachments(text: String) throws {
        let packet = try SocketPacketDecoder().decode(text)
        #expect(throws: SocketProtocolError.invalidPlaceholder) { try BinaryPacketAssembler(packet: packet) }
    }

    @Test func objectsThatAreNotPlaceholdersStayObjects() throws {
        let packet = try SocketPacketDecoder().decode(#"51-["e",{"_placeholder":false,"num":0},{"num":0},{"_placeholder":true,"num":0}]"#)
        var assembler = try BinaryPacketAssembler(packet: packet)
        let assembled = try #require(try assembler.append([7]))
        #expect(assembled.data == ["e", ["_placeholder": false, "num": 0], ["num": 0], .binary([7])])
    }

    // MARK: Malformed input

    static let malformed: [(String, SocketProtocolError)] = [
        ("", .emptyPacket),
        ("7", .unknownPacketType(UInt8(ascii: "7"))),
        ("x", .unknownPacketType(UInt8(ascii: "x"))),
        ("/", .unknownPacketType(UInt8(ascii: "/"))),
        ("5", .invalidAttachmentCount),
        ("5-[\"e\"]", .invalidAttachmentCount),
        ("51[\"e\"]", .invalidAttachmentCount),
        ("5a-[\"e\"]", .invalidAttachmentCount),
        ("61", .invalidAttachmentCount),
        ("51001-[\"e\"]", .tooManyAttachments(limit: 1000)),
        ("599999999999999999999999999-[\"e\"]", .tooManyAttachments(limit: 1000)),
        ("29007199254740992[\"e\"]", .invalidAckID),
        ("2999999999999999999999999999[\"e\"]", .invalidAckID),
        ("2[\"e\"", .invalidJSON(JSONParseError(.unexpectedEnd, at: 4))),
        ("2[\"e\"]x", .invalidJSON(JSONParseError(.trailingData, at: 5))),
        ("2/admin,{", .invalidJSON(JSONParseError(.unexpectedEnd, at: 1))),
        ("2", .invalidPayload(.event)),
        ("2[]", .invalidPayload(.event)),
        ("2{}", .invalidPayload(.event)),
        ("2\"e\"", .invalidPayload(.event)),
        ("2[null]", .invalidPayload(.event)),
        ("2[[\"e\"]]", .invalidPayload(.event)),
        ("3", .invalidPayload(.ack)),
        ("3{}", .invalidPayload(.ack)),
        ("0[]", .invalidPayload(.connect)),
        ("0\"x\"", .invalidPayload(.connect)),
        ("1[]", .invalidPayload(.disconnect)),
        ("1/admin,{}", .invalidPayload(.disconnect)),
        ("4", .invalidPayload(.connectError)),
        ("4[]", .invalidPayload(.connectError)),
        ("51-", .invalidPayload(.binaryEvent)),
    ]

    @Test(arguments: Self.malformed)
    func rejectsMalformedPackets(text: String, error: SocketProtocolError) {
        #expect(throws: error) { try SocketPacketDecoder().decode(text) }
    }

    @Test func legacyStringConnectErrorIsAccepted() throws {
        #expect(try SocketPacketDecoder().decode(#"4"unauthorized""#).data == "unauthorized")
    }

    @Test func namespaceWithoutCommaRunsToTheEnd() throws {
        #expect(try SocketPacketDecoder().decode("1/admin") == SocketPacket(type: .disconnect, namespace: "/admin"))
    }

    @Test func hostileNestingIsBounded() {
        let text = "2" + String(repeating: "[", count: 100_000)
        #expect(throws: SocketProtocolError.self) { try SocketPacketDecoder().decode(text) }
    }

    @Test func mutatedPacketsNeverTrap() {
        let bytes = Array(#"52-/admin,12["e",{"_placeholder":true,"num":1},{"_placeholder":true,"num":0}]"#.utf8)
        for index in bytes.indices {
            for replacement in Array("0123456789-/,[]{}\"x".utf8) {
                var mutated = bytes
                mutated[index] = replacement
                guard let packet = try? SocketPacketDecoder().decode(String(decoding: mutated, as: UTF8.self)) else { continue }
                if var assembler = try? BinaryPacketAssembler(packet: packet) {
                    _ = assembler.packetIfComplete()
                    for _ in 0..<(packet.attachmentCount + 1) {
                        _ = try? assembler.append([1])
                    }
                }
            }
        }
    }

    @Test func eventAccessors() throws {
        let packet = try SocketPacketDecoder().decode(#"2["chat",1,"two"]"#)
        #expect(packet.eventName == "chat")
        #expect(packet.arguments == [1, "two"])
        let ack = try SocketPacketDecoder().decode(#"35["a",2]"#)
        #expect(ack.eventName == nil)
        #expect(ack.arguments == ["a", 2])
    }
}
