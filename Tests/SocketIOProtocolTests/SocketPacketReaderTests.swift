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
        #expect(try reader.receive(binary: [2, 3]) == SocketPacket(
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
}
