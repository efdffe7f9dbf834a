import Testing

@testable import SocketIOProtocol

@Suite struct SocketPacketReaderTests {
    @Test func textPacketsPassStraightThrough() throws {
        var reader = SocketPacketReader()
        #expect(try reader.receive(text: #"2["e",1]"#) == SocketPacket(type: .event, data: ["e", 1]))
        #expect(try reader.receive(text: "1/admin,") == SocketPacket(type: .disconnect, namespace: "/admin"))
    }

    @Test func binaryPacketCompletesWithItsLastAttachment() throws {
        var reader = SocketPacketReader()
        #expect(try reader.receive(text: #"52-/admin,["up",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#) == nil)
        #expect(reader.isAwaitingAttachments)
        #expect(try reader.receive(binary: [1]) == nil)
        #expect(
            try reader.receive(binary: [2, 3])
                == SocketPacket(
                    type: .binaryEvent, namespace: "/admin", data: ["up", .binary([1]), .binary([2, 3])], attachmentCount: 2))
        #expect(!reader.isAwaitingAttachments)
        // Zero announced attachments complete at once.
        #expect(try reader.receive(text: #"50-["e"]"#) == SocketPacket(type: .binaryEvent, data: ["e"]))
    }

    @Test func outOfPlaceMessagesAreRejected() throws {
        var reader = SocketPacketReader()
        #expect(throws: SocketProtocolError.unexpectedAttachment) { try reader.receive(binary: [1]) }
        #expect(try reader.receive(text: #"51-["e",{"_placeholder":true,"num":0}]"#) == nil)
        #expect(throws: SocketProtocolError.textWhileAwaitingAttachments) { try reader.receive(text: #"2["x"]"#) }
        // The partial packet is gone; the reader works again.
        #expect(!reader.isAwaitingAttachments)
        #expect(try reader.receive(text: #"2["x"]"#) == SocketPacket(type: .event, data: ["x"]))
        #expect(throws: SocketProtocolError.invalidPlaceholder) { try reader.receive(text: #"51-["e",{"_placeholder":true,"num":5}]"#) }
        #expect(!reader.isAwaitingAttachments)
    }

    @Test func resetDropsAPartialPacket() throws {
        var reader = SocketPacketReader()
        _ = try reader.receive(text: #"51-["e",{"_placeholder":true,"num":0}]"#)
        reader.reset()
        #expect(throws: SocketProtocolError.unexpectedAttachment) { try reader.receive(binary: [1]) }
    }

    // MARK: socket.io-client-swift's interleaving (`.keepWaiting`)

    @Test func keepWaitingDecodesTextWhileAttachmentsAreExpected() throws {
        var reader = SocketPacketReader(interleaving: .keepWaiting(limit: 16))
        #expect(try reader.receive(text: #"51-["a",{"_placeholder":true,"num":0}]"#) == nil)
        // A plain packet in between is decoded and returned; the binary one keeps waiting.
        #expect(try reader.receive(text: #"2["x"]"#) == SocketPacket(type: .event, data: ["x"]))
        #expect(reader.isAwaitingAttachments)
        #expect(
            try reader.receive(binary: [7])
                == SocketPacket(
                    type: .binaryEvent, data: ["a", .binary([7])], attachmentCount: 1))
        #expect(!reader.isAwaitingAttachments)
    }

    @Test func keepWaitingGivesAttachmentsToTheNewestPacket() throws {
        var reader = SocketPacketReader(interleaving: .keepWaiting(limit: 16))
        _ = try reader.receive(text: #"51-["old",{"_placeholder":true,"num":0}]"#)
        _ = try reader.receive(text: #"51-["new",{"_placeholder":true,"num":0}]"#)
        #expect(reader.waitingPackets.map { $0.packet.eventName } == ["old", "new"])
        #expect(try reader.receive(binary: [1])?.eventName == "new")
        #expect(
            try reader.receive(binary: [2])
                == SocketPacket(
                    type: .binaryEvent, data: ["old", .binary([2])], attachmentCount: 1))
        #expect(throws: SocketProtocolError.unexpectedAttachment) { try reader.receive(binary: [3]) }
    }

    /// The waiting packets share one byte budget: sixteen waiting packets do not hold sixteen
    /// budgets' worth of attachments. Past it every waiting packet is dropped: the attachments
    /// still to come were the newest packet's, and must not complete an older one.
    @Test func waitingPacketsShareOneByteBudget() throws {
        var reader = SocketPacketReader(interleaving: .keepWaiting(limit: 16), maximumAttachmentBytes: 100)
        #expect(try reader.receive(text: #"52-["old"]"#) == nil)
        #expect(try reader.receive(binary: [UInt8](repeating: 1, count: 70)) == nil)
        #expect(try reader.receive(text: #"52-["new"]"#) == nil)
        #expect(try reader.receive(binary: [UInt8](repeating: 2, count: 30)) == nil)
        #expect(throws: SocketProtocolError.attachmentsTooLarge(limit: 100)) {
            try reader.receive(binary: [3])
        }
        #expect(!reader.isAwaitingAttachments)
        #expect(throws: SocketProtocolError.unexpectedAttachment) { try reader.receive(binary: [4]) }
        // The reader goes on with the next packet.
        #expect(try reader.receive(text: #"51-["next"]"#) == nil)
        #expect(try reader.receive(binary: [5])?.eventName == "next")
    }

    @Test func keepWaitingStaysBoundedByDroppingTheOldest() throws {
        var reader = SocketPacketReader(interleaving: .keepWaiting(limit: 4))
        for index in 0..<100 {
            #expect(try reader.receive(text: #"51-["b\#(index)",{"_placeholder":true,"num":0}]"#) == nil)
        }
        #expect(reader.waitingPackets.map { $0.packet.eventName } == ["b96", "b97", "b98", "b99"])
        // A rejected announcement keeps nothing and leaves the others waiting.
        #expect(throws: SocketProtocolError.invalidPlaceholder) {
            try reader.receive(text: #"51-["bad",{"_placeholder":true,"num":3}]"#)
        }
        #expect(reader.waitingPackets.count == 4)
    }

    @Test func waitingPacketsCanBeReplacedWithTheirAttachments() throws {
        var reader = SocketPacketReader(interleaving: .keepWaiting(limit: 16))
        let announced = try SocketPacketDecoder().decode(
            #"52-["two",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
        let invalid = try SocketPacketDecoder().decode(#"51-["bad",{"_placeholder":true,"num":0}]"#)
        reader.replaceWaitingPackets(with: [
            (announced, [[1]]), (invalid, [[1], [2]]),
            (SocketPacket(type: .event, data: ["plain"]), []),
        ])
        // Only the packet that still expects attachments is kept, with the one it has.
        #expect(reader.waitingPackets.count == 1)
        #expect(reader.waitingPackets.first?.attachments == [[1]])
        #expect(
            try reader.receive(binary: [2])
                == SocketPacket(
                    type: .binaryEvent, data: ["two", .binary([1]), .binary([2])], attachmentCount: 2))
    }

    @Test func aDecoderCanRequireStringEventNames() throws {
        #expect(try SocketPacketDecoder().decode("2[1]").type == .event)
        #expect(throws: SocketProtocolError.invalidPayload(.event)) {
            try SocketPacketDecoder(requiresStringEventName: true).decode("2[1]")
        }
        #expect(try SocketPacketDecoder(requiresStringEventName: true).decode(#"2["e"]"#).eventName == "e")
    }
}
