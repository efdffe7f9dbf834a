import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// Connection state recovery in the namespace machine, narrated as socket.io-client 4.8 does it
/// (`socket.ts`: `onconnect`, `emitEvent`, `_sendConnectPacket`) against a socket.io 4.8 server
/// with `connectionStateRecovery` on.
@Suite struct NamespaceRecoveryTests {
    let decoder = SocketPacketDecoder()

    func packet(_ text: String) throws -> SocketPacket {
        try self.decoder.decode(text)
    }

    /// A connected machine whose server recovers sessions (`pid` "P1"), with auth {"token":"t"}.
    func connected() throws -> NamespaceStateMachine {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        #expect(machine.connect(auth: ["token": "t"]) == [.send(SocketPacket(type: .connect, data: ["token": "t"]))])
        #expect(machine.receive(try self.packet(#"0{"sid":"S1","pid":"P1"}"#)) == [.connected(sid: "S1")])
        #expect(machine.reportConnected(sid: "S1") == [])
        #expect(machine.recoveryPID == "P1")
        #expect(!machine.recovered)  // a first connection restores nothing
        return machine
    }

    @Test func withoutAPidNothingIsTrackedAndCONNECTCarriesTheAuthOnly() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connect(auth: ["token": "t"])
        _ = machine.receive(try self.packet(#"0{"sid":"S1"}"#))
        _ = machine.reportConnected(sid: "S1")
        _ = machine.receive(try self.packet(#"2["news","offset-like"]"#))
        #expect(machine.recoveryPID == nil)
        #expect(machine.recoveryOffset == nil)  // recorded only while a pid is known
        _ = machine.transportClosed(willReconnect: true)
        #expect(machine.transportOpened() == [.send(SocketPacket(type: .connect, data: ["token": "t"]))])
        _ = machine.receive(try self.packet(#"0{"sid":"S2"}"#))
        #expect(!machine.recovered)
    }

    @Test func aCutThenARestoredSessionReplaysBeforeConnect() throws {
        var machine = try self.connected()
        let first = try self.packet(#"2["room",1,"o1"]"#)
        let second = try self.packet(#"2["room",2,"o2"]"#)
        #expect(machine.receive(first) == [.deliverEvent(first)])
        #expect(machine.receive(second) == [.deliverEvent(second)])
        #expect(machine.recoveryOffset == "o2")

        // The transport is cut; the manager reconnects.
        #expect(machine.transportClosed(willReconnect: true) == [.reconnecting])
        machine.setStatus(.connecting)  // the socket's `setReconnecting`
        // CONNECT: pid and offset first, then the auth's members (Object.assign({pid, offset}, auth)).
        let connect = SocketPacket(type: .connect, data: .object(JSONObject([("pid", "P1"), ("offset", "o2"), ("token", "t")])))
        #expect(machine.transportOpened() == [.send(connect)])
        #expect(SocketPacketEncoder.encode(connect).text == #"0{"pid":"P1","offset":"o2","token":"t"}"#)

        // The server replays what was missed, then acknowledges with the same pid.
        let missed3 = try self.packet(#"2["room",3,"o3"]"#)
        let missedBinary = try self.packet(#"2["file",{"_placeholder":true,"num":0},"o4"]"#)
        #expect(machine.receive(missed3) == [])
        #expect(machine.receive(missedBinary) == [])
        #expect(machine.receive(try self.packet(#"0{"sid":"S1","pid":"P1"}"#)) == [.connected(sid: "S1")])
        #expect(machine.recovered)
        #expect(machine.sid == "S1")
        // Delivered when the socket reports connected (before its `connect` event), in order.
        #expect(machine.reportConnected(sid: "S1") == [.deliverEvent(missed3), .deliverEvent(missedBinary)])
        #expect(machine.recoveryOffset == "o4")
    }

    @Test func aDeclinedSessionIsNotRecoveredAndForgetsTheOldOffset() throws {
        var machine = try self.connected()
        _ = machine.receive(try self.packet(#"2["room",1,"o1"]"#))
        _ = machine.transportClosed(willReconnect: true)
        machine.setStatus(.connecting)
        _ = machine.transportOpened()
        // Expired session or unknown offset: a new sid and a new pid.
        #expect(machine.receive(try self.packet(#"0{"sid":"S2","pid":"P2"}"#)) == [.connected(sid: "S2")])
        #expect(!machine.recovered)
        #expect(machine.recoveryPID == "P2")
        #expect(machine.recoveryOffset == nil)
        #expect(machine.reportConnected(sid: "S2") == [])
        _ = machine.transportClosed(willReconnect: true)
        #expect(
            machine.transportOpened()
                == [.send(SocketPacket(type: .connect, data: .object(JSONObject([("pid", "P2"), ("token", "t")]))))])
    }

    /// socket.io-client keeps `_pid` and `_lastOffset` across `disconnect()` and sends them on
    /// the next `connect()`: the server decides (socket.io 4.8 declines after a namespace leave).
    @Test func aManualDisconnectKeepsThePidAndOffsetForTheNextConnect() throws {
        var machine = try self.connected()
        _ = machine.receive(try self.packet(#"2["room",1,"o1"]"#))
        #expect(machine.disconnect() == [.send(SocketPacket(type: .disconnect)), .disconnected(.clientDisconnect)])
        #expect(
            machine.connect(auth: nil)
                == [.send(SocketPacket(type: .connect, data: .object(JSONObject([("pid", "P1"), ("offset", "o1")]))))])
        _ = machine.receive(try self.packet(#"0{"sid":"S3","pid":"P3"}"#))
        #expect(!machine.recovered)
    }

    @Test func theAuthsOwnMembersWinAsInObjectAssign() throws {
        var machine = try self.connected()
        _ = machine.receive(try self.packet(#"2["room","o1"]"#))
        _ = machine.disconnect()
        let sent = machine.connect(auth: ["offset": "mine", "token": "u"])
        #expect(sent == [.send(SocketPacket(type: .connect, data: .object(JSONObject([("pid", "P1"), ("offset", "mine"), ("token", "u")]))))])
    }

    /// The offset is the packet array's last element when it is a string, as socket.io-client
    /// reads it: an event without arguments records its name; a non-string last argument
    /// leaves the offset as it was; acks never change it.
    @Test func whichLastArgumentBecomesTheOffset() throws {
        var machine = try self.connected()
        _ = machine.receive(try self.packet(#"2["room",1,"o1"]"#))
        _ = machine.receive(try self.packet(#"2["count",5]"#))
        #expect(machine.recoveryOffset == "o1")
        _ = machine.receive(try self.packet(#"30["ack-text"]"#))
        #expect(machine.recoveryOffset == "o1")
        _ = machine.receive(try self.packet(#"2["ping"]"#))
        #expect(machine.recoveryOffset == "ping")
    }

    /// An event that asks for an ack carries no offset (the server appends one only to events
    /// without ack, and socket.io-client pushes the ack function before reading the last
    /// argument): its string last argument is the app's, and the offset stays as it was.
    @Test func anEventAskingForAnAckLeavesTheOffsetAlone() throws {
        var machine = try self.connected()
        _ = machine.receive(try self.packet(#"2["room",1,"o1"]"#))
        _ = machine.receive(try self.packet(#"27["question","the app's own string"]"#))
        #expect(machine.recoveryOffset == "o1")
    }

    /// The rule a typed decoder uses to leave the offset out of an event's own arguments.
    @Test func whichEventsEndWithARecoveryOffset() throws {
        var machine = NamespaceStateMachine(namespace: "/", revision: .v5)
        // No session known (the server does not recover): a string last argument is the app's.
        #expect(!machine.endsWithRecoveryOffset(asksForAck: false, lastArgumentIsString: true))
        machine = try self.connected()
        #expect(machine.endsWithRecoveryOffset(asksForAck: false, lastArgumentIsString: true))
        #expect(!machine.endsWithRecoveryOffset(asksForAck: true, lastArgumentIsString: true))
        #expect(!machine.endsWithRecoveryOffset(asksForAck: false, lastArgumentIsString: false))
    }
}
