import Foundation
import Testing

@testable import SocketIO

@Suite struct SocketValueConversionTests {
    @Test func booleansStayBooleansAndIntegersStayIntegers() throws {
        let packet = try SocketPacket.decode("2[\"e\",true,1,0,false,1.5,-2,null]")
        let args = packet.args
        #expect(type(of: args[0]) == Bool.self)
        #expect(type(of: args[1]) == Int.self)
        #expect(type(of: args[2]) == Int.self)
        #expect(type(of: args[3]) == Bool.self)
        #expect(args[4] as? Double == 1.5)
        #expect(args[5] as? Int == -2)
        #expect(args[6] is NSNull)
    }

    @Test func encodesNativeAndFoundationValues() {
        let items: [Any] = [
            "e", true, 1, 2.5, "a\"b\n", NSNull(), NSNumber(value: true), NSNumber(value: 7),
            NSNumber(value: 1.5), ["k": [1, false]] as [String: Any], [] as [Any], Double.nan,
        ]
        let text = SocketPacket.packetFromEmit(items, id: -1, nsp: "/", ack: false).packetString
        #expect(text == #"2["e",true,1,2.5,"a\"b\n",null,true,7,1.5,{"k":[1,false]},[],null]"#)
    }

    struct Wrapper: SocketData {
        var name: String
        func socketRepresentation() -> SocketData { ["name": name] }
    }

    @Test func nestedCustomSocketDataUsesItsRepresentation() {
        let text = SocketPacket.packetFromEmit(["e", [Wrapper(name: "x")]], id: -1, nsp: "/", ack: false).packetString
        #expect(text == #"2["e",[{"name":"x"}]]"#)
    }

    @Test func roundTripsUnicode() throws {
        let original = "héllo \u{1F600} \\ / \t"
        let text = SocketPacket.packetFromEmit(["e", original], id: -1, nsp: "/", ack: false).packetString
        #expect(try SocketPacket.decode(text).args.first as? String == original)
    }
}

@Suite struct SocketPacketTests {
    @Test func encodesEventsAcksAndNamespaces() {
        #expect(SocketPacket.packetFromEmit(["hi", 1], id: -1, nsp: "/", ack: false).packetString == #"2["hi",1]"#)
        #expect(SocketPacket.packetFromEmit(["hi"], id: 12, nsp: "/admin", ack: false).packetString == #"2/admin,12["hi"]"#)
        #expect(SocketPacket.packetFromEmit([true], id: 3, nsp: "/", ack: true).packetString == "33[true]")
        #expect(SocketPacket(type: .connect, nsp: "/").packetString == "0")
        #expect(SocketPacket(type: .connect, data: [["token": "t"]], nsp: "/admin").packetString == #"0/admin,{"token":"t"}"#)
        #expect(SocketPacket(type: .disconnect, nsp: "/admin").packetString == "1/admin,")
    }

    @Test func replacesNestedDataByPlaceholders() {
        let blob = Data([1, 2, 3])
        let packet = SocketPacket.packetFromEmit(
            ["up", ["file": blob, "list": [Data([9])]] as [String: Any]],
            id: -1, nsp: "/", ack: false)
        #expect(packet.type == .binaryEvent)
        #expect(packet.binary == [blob, Data([9])])
        #expect(packet.packetString == #"52-["up",{"file":{"_placeholder":true,"num":0},"list":[{"_placeholder":true,"num":1}]}]"#)
        let ack = SocketPacket.packetFromEmit([Data([7])], id: 4, nsp: "/x", ack: true)
        #expect(ack.packetString == #"61-/x,4[{"_placeholder":true,"num":0}]"#)
    }

    @Test func decodesEveryPacketShape() throws {
        let event = try SocketPacket.decode(#"2/admin,7["echo",{"a":1},true]"#)
        #expect(event.type == .event)
        #expect(event.nsp == "/admin")
        #expect(event.id == 7)
        #expect(event.event == "echo")
        #expect(event.args.count == 2)

        let connect = try SocketPacket.decode(#"0{"sid":"abc"}"#)
        #expect(connect.type == .connect)
        #expect((connect.data.first as? [String: Any])?["sid"] as? String == "abc")

        let error = try SocketPacket.decode(#"4/admin,{"message":"forbidden","data":{"code":3}}"#)
        #expect(error.type == .error)
        #expect(error.nsp == "/admin")
        #expect((error.data.first as? [String: Any])?["message"] as? String == "forbidden")

        let disconnect = try SocketPacket.decode("1/admin,")
        #expect(disconnect.type == .disconnect)
        #expect(disconnect.nsp == "/admin")

        // Attachments are filled in by SocketIOProtocol's `SocketPacketReader` on the packet
        // path (SocketPacketReaderTests), not by the public packet.
        let binary = try SocketPacket.decode(#"51-["bin",{"_placeholder":true,"num":0}]"#)
        #expect(binary.type == .binaryEvent)
        #expect(binary.placeholders == 1)
    }

    @Test(arguments: [
        "", "9", "x[]", "2", "2[1]", "5[\"a\"]", "5x-[\"a\"]", "21234567890123456789[\"a\"]",
        "2[\"a\"", "51000000-[\"a\"]", "2" + String(repeating: "[", count: 10_000),
    ])
    func rejectsMalformedPackets(_ text: String) {
        #expect(throws: SocketParsableError.self) { try SocketPacket.decode(text) }
    }
}
