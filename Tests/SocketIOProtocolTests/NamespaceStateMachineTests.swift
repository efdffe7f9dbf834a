import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// Narrated exchanges following socket.io-protocol v5, "Connection to a namespace".
@Suite struct NamespaceStateMachineTests {
    let decoder = SocketPacketDecoder()

    func packet(_ text: String) throws -> SocketPacket {
        try self.decoder.decode(text)
    }

    @Test func connectWithAuthThenAckThenEvents() throws {
        var machine = NamespaceStateMachine(namespace: "/admin")
        // The user connects before the Engine.IO session is open: nothing to send yet.
        #expect(machine.connect(auth: ["token": "123"]) == [])
        #expect(machine.isConnecting)
        // The session opens: CONNECT goes out with the auth payload.
        #expect(machine.transportOpened() == [.send(SocketPacket(type: .connect, namespace: "/admin", data: ["token": "123"]))])
        #expect(
            SocketPacketEncoder.encode(SocketPacket(type: .connect, namespace: "/admin", data: ["token": "123"])).text
                == #"0/admin,{"token":"123"}"#)
        // Connecting twice does not send a second CONNECT.
        #expect(machine.connect(auth: nil) == [])
        // The server accepts.
        #expect(machine.receive(try self.packet(#"0/admin,{"sid":"iLnRaVGHY4B75TeVAAAB"}"#)) == [.connected(sid: "iLnRaVGHY4B75TeVAAAB")])
        #expect(machine.sid == "iLnRaVGHY4B75TeVAAAB")
        // Events and acks flow.
        let event = try self.packet(#"2/admin,["bar"]"#)
        #expect(machine.receive(event) == [.deliverEvent(event)])
        let ack = try self.packet(#"3/admin,13["bar"]"#)
        #expect(machine.receive(ack) == [.deliverAck(ack)])
        // A duplicate CONNECT is ignored.
        #expect(machine.receive(try self.packet(#"0/admin,{"sid":"other"}"#)) == [])
        #expect(machine.sid == "iLnRaVGHY4B75TeVAAAB")
    }

    @Test func eventsBeforeTheConnectAckAreDeliveredInOrderWhenTheSocketReportsConnected() throws {
        // python-socketio emits from its connect handler before sending `40`.
        var machine = NamespaceStateMachine(namespace: "/")
        #expect(machine.transportOpened() == [])
        #expect(machine.connect(auth: nil) == [.send(SocketPacket(type: .connect))])
        let first = try self.packet(#"2["welcome",1]"#)
        let second = try self.packet(#"2["welcome",2]"#)
        let ack = try self.packet(#"30[]"#)
        #expect(machine.receive(first) == [])
        #expect(machine.receive(second) == [])
        #expect(machine.receive(ack) == [])
        // Held until the socket reports `connected`, then delivered before its `connect` event
        // (socket.io-client's receiveBuffer order).
        #expect(machine.receive(try self.packet(#"0{"sid":"s1"}"#)) == [.connected(sid: "s1")])
        #expect(machine.reportConnected(sid: "s1") == [.deliverEvent(first), .deliverEvent(second), .deliverAck(ack)])
        #expect(machine.reportConnected(sid: "s1") == nil)
        let third = try self.packet(#"2["welcome",3]"#)
        #expect(machine.receive(third) == [.deliverEvent(third)])
    }

    @Test func connectErrorSurfacesAndTheMachineCanRetry() throws {
        var machine = NamespaceStateMachine(namespace: "/admin")
        _ = machine.transportOpened()
        #expect(machine.connect(auth: ["token": "bad"]) == [.send(SocketPacket(type: .connect, namespace: "/admin", data: ["token": "bad"]))])
        let buffered = try self.packet(#"2/admin,["early"]"#)
        #expect(machine.receive(buffered) == [])
        #expect(
            machine.receive(try self.packet(#"4/admin,{"message":"forbidden","data":{"code":403}}"#))
                == [.connectError(message: "forbidden", data: ["code": 403])])
        #expect(!machine.isConnecting && !machine.isConnected)
        // Buffered packets of the refused attempt are dropped; a retry starts clean.
        #expect(machine.connect(auth: ["token": "good"]) == [.send(SocketPacket(type: .connect, namespace: "/admin", data: ["token": "good"]))])
        #expect(machine.receive(try self.packet(#"0/admin,{"sid":"ok"}"#)) == [.connected(sid: "ok")])
    }

    @Test func connectErrorVariants() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        #expect(machine.receive(try self.packet(#"4{"message":"unauthorized"}"#)) == [.connectError(message: "unauthorized", data: nil)])
        _ = machine.connect(auth: nil)
        #expect(machine.receive(try self.packet(#"4"legacy""#)) == [.connectError(message: "legacy", data: nil)])
        _ = machine.connect(auth: nil)
        #expect(machine.receive(try self.packet(#"4{}"#)) == [.connectError(message: "connect error", data: nil)])
        // A CONNECT_ERROR when not connecting is ignored.
        #expect(machine.receive(try self.packet(#"4{"message":"late"}"#)) == [])
    }

    @Test func connectAckWithoutSidIsAnError() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        let actions = machine.receive(try self.packet("0"))
        guard case .connectError = actions.first, actions.count == 1 else {
            Issue.record("expected one connectError, got \(actions)")
            return
        }
        #expect(!machine.isConnected)
    }

    @Test func serverDisconnect() throws {
        var machine = NamespaceStateMachine(namespace: "/admin")
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0/admin,{"sid":"a"}"#))
        #expect(machine.receive(try self.packet("1/admin,")) == [.disconnected(.serverDisconnect)])
        // Events after a disconnect are dropped.
        #expect(machine.receive(try self.packet(#"2/admin,["x"]"#)) == [])
        #expect(machine.receive(try self.packet("1/admin,")) == [])
    }

    @Test func clientDisconnectSendsDisconnect() throws {
        var machine = NamespaceStateMachine(namespace: "/admin")
        #expect(machine.disconnect() == [])
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0/admin,{"sid":"a"}"#))
        #expect(machine.disconnect() == [.send(SocketPacket(type: .disconnect, namespace: "/admin")), .disconnected(.clientDisconnect)])
        #expect(SocketPacketEncoder.encode(SocketPacket(type: .disconnect, namespace: "/admin")).text == "1/admin,")
        #expect(machine.disconnect() == [])
    }

    @Test func clientDisconnectWhileConnectingBeforeSendingSendsNothing() {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.connect(auth: nil)
        #expect(machine.disconnect() == [.disconnected(.clientDisconnect)])
        #expect(machine.transportOpened() == [])
    }

    @Test func transportLossWithReconnectResendsConnectWithTheSameAuth() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connect(auth: ["token": "t"])
        _ = machine.receive(try self.packet(#"0{"sid":"a"}"#))
        #expect(machine.transportClosed(willReconnect: true) == [.reconnecting])
        #expect(machine.isConnecting)
        #expect(machine.transportOpened() == [.send(SocketPacket(type: .connect, data: ["token": "t"]))])
        #expect(machine.receive(try self.packet(#"0{"sid":"b"}"#)) == [.connected(sid: "b")])
    }

    @Test func transportLossWithoutReconnectDisconnects() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0{"sid":"a"}"#))
        #expect(machine.transportClosed(willReconnect: false) == [.disconnected(.transportClose)])
        #expect(machine.transportClosed(willReconnect: false) == [])
        // While connecting, too.
        _ = machine.connect(auth: nil)
        #expect(machine.transportClosed(willReconnect: true) == [])
        #expect(machine.transportClosed(willReconnect: false) == [.disconnected(.transportClose)])
    }

    @Test func floodBeforeConnectAckIsBounded() throws {
        var machine = NamespaceStateMachine(namespace: "/", maximumBufferedPackets: 2)
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        let event = try self.packet(#"2["x"]"#)
        #expect(machine.receive(event) == [])
        #expect(machine.receive(event) == [])
        #expect(machine.receive(event) == [.send(SocketPacket(type: .disconnect)), .disconnected(.tooManyPacketsBeforeConnect)])
        #expect(machine.receive(try self.packet(#"0{"sid":"late"}"#)) == [])
    }
}

/// Socket.IO 2.x servers (socket.io-protocol v4 over Engine.IO v3).
@Suite struct NamespaceStateMachineRevision4Tests {
    @Test func mainNamespaceIsJoinedImplicitly() throws {
        var machine = NamespaceStateMachine(namespace: "/", revision: .v4)
        #expect(machine.connect(auth: ["ignored": true]) == [])
        // No CONNECT for "/": the server sends `40` by itself.
        #expect(machine.transportOpened(engineSID: "engine-sid") == [])
        let early = try SocketPacketDecoder().decode(#"2["hi"]"#)
        #expect(machine.receive(early) == [])
        #expect(machine.receive(try SocketPacketDecoder().decode("0")) == [.connected(sid: "engine-sid")])
        #expect(machine.reportConnected(sid: nil) == [.deliverEvent(early)])
    }

    @Test func otherNamespacesSendConnectWithoutPayload() throws {
        var machine = NamespaceStateMachine(namespace: "/admin", revision: .v4)
        _ = machine.transportOpened(engineSID: "e")
        #expect(machine.connect(auth: ["token": "x"]) == [.send(SocketPacket(type: .connect, namespace: "/admin"))])
        #expect(SocketPacketEncoder.encode(SocketPacket(type: .connect, namespace: "/admin")).text == "0/admin,")
        #expect(machine.receive(try SocketPacketDecoder().decode("0/admin")) == [.connected(sid: "e")])
    }

    @Test func errorPacketCarriesAString() throws {
        var machine = NamespaceStateMachine(namespace: "/admin", revision: .v4)
        _ = machine.transportOpened(engineSID: "e")
        _ = machine.connect(auth: nil)
        #expect(
            machine.receive(try SocketPacketDecoder().decode(#"4/admin,"Not authorized""#)) == [.connectError(message: "Not authorized", data: nil)])
        #expect(SocketProtocolRevision.v4.engineVersion == .v3)
        #expect(SocketProtocolRevision.v5.engineVersion == .v4)
    }
}

extension NamespaceStateMachineRevision4Tests {
    @Test func implicitConnectBeforeTheUserConnects() throws {
        var machine = NamespaceStateMachine(namespace: "/", revision: .v4)
        _ = machine.transportOpened(engineSID: "e")
        #expect(machine.receive(try SocketPacketDecoder().decode("0")) == [])
        #expect(machine.connect(auth: nil) == [.connected(sid: "e")])
        #expect(machine.isConnected)
    }
}
