import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// Socket.IO 2.x ERROR packets (socket.io-protocol v4, type `4`): any JSON payload or none,
/// no ack id, as socket.io-client-swift's `parseString` reads them. v5 keeps CONNECT_ERROR strict.
@Suite struct VersionTwoErrorPacketTests {
    static let versionTwo = SocketPacketDecoder(revision: .v4)

    @Test(arguments: [
        (#"4"not allowed""#, "/", JSONValue?.some(.string("not allowed"))),
        (#"4{"reason":"banned"}"#, "/", .some(["reason": "banned"])),
        (#"4/admin,"not allowed""#, "/admin", .some(.string("not allowed"))),
        (#"4/admin,{"message":"forbidden"}"#, "/admin", .some(["message": "forbidden"])),
        ("4", "/", nil),
        ("4/admin", "/admin", nil),
        ("4/admin,", "/admin", nil),
        ("4123", "/", .some(.int(123))),
        (#"4/admin,["a",1]"#, "/admin", .some(["a", 1])),
        ("4true", "/", .some(.bool(true))),
        ("4null", "/", .some(.null)),
    ])
    func versionTwoAcceptsWhatServersSend(_ text: String, _ namespace: String, _ data: JSONValue?) throws {
        let packet = try Self.versionTwo.decode(text)
        #expect(packet.type == .connectError)
        #expect(packet.namespace == namespace)
        #expect(packet.ackID == nil)
        #expect(packet.data == data)
    }

    @Test(arguments: ["4{", #"4"open"#, "4/admin,[1"])
    func versionTwoStillRefusesBrokenJSON(_ text: String) {
        #expect(throws: SocketProtocolError.self) { try Self.versionTwo.decode(text) }
    }

    /// v5 CONNECT_ERROR: an object or a string, nothing else.
    @Test(arguments: ["4", "4123", "4[1]", "4true", "4/admin,"])
    func versionThreeKeepsTheConnectErrorRule(_ text: String) {
        #expect(throws: SocketProtocolError.invalidPayload(.connectError)) { try SocketPacketDecoder().decode(text) }
    }

    @Test func versionThreeAcceptsObjectsAndStrings() throws {
        #expect(try SocketPacketDecoder().decode(#"4{"message":"x"}"#).data == ["message": "x"])
        #expect(try SocketPacketDecoder().decode(#"4"x""#).data == .string("x"))
    }

    /// Other packet types decode the same under both revisions.
    @Test(arguments: [#"2/admin,13["bar"]"#, #"3/admin,13["bar"]"#, "0/admin,", #"51-["b",{"_placeholder":true,"num":0}]"#])
    func otherTypesAreUnchanged(_ text: String) throws {
        #expect(try Self.versionTwo.decode(text) == SocketPacketDecoder().decode(text))
    }
}
