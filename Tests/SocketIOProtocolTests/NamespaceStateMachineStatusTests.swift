import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// The socket's reported status as the namespace machine owns it: the inputs of
/// socket.io-client-swift's `open` entry points (`connect(withPayload:timeoutAfter:)`, its
/// timeout, `didConnect`, `didDisconnect`, `setReconnecting` / `setStatus`, a refused CONNECT)
/// and how they meet the protocol inputs.
@Suite struct NamespaceStateMachineStatusTests {
    let decoder = SocketPacketDecoder()

    func packet(_ text: String) throws -> SocketPacket {
        try self.decoder.decode(text)
    }

    @Test func protocolInputsNeverChangeTheReportedStatus() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        #expect(machine.status == .notConnected)
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        #expect(machine.status == .notConnected)
        // The server accepts: the namespace is connected, the socket has not reported it yet
        // (upstream sets the status in `didConnect`, which a subclass may override).
        #expect(machine.receive(try self.packet(#"0{"sid":"a"}"#)) == [.connected(sid: "a")])
        #expect(machine.isConnected)
        #expect(machine.status == .notConnected)
        _ = machine.receive(try self.packet("1"))
        #expect(!machine.isConnected)
        #expect(machine.status == .notConnected)
    }

    /// Upstream's public `sid`: `nil` before the first connect, the reported id (kept while
    /// reconnecting), `""` after a disconnect; the protocol's ``NamespaceStateMachine/sid`` only
    /// while connected.
    @Test func theReportedSIDFollowsUpstream() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        #expect(machine.reportedSID == nil)
        _ = machine.startConnecting()
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0{"sid":"a"}"#))
        #expect(machine.reportedSID == nil, "not reported yet")
        _ = machine.reportConnected(sid: "a")
        #expect(machine.reportedSID == "a" && machine.sid == "a")
        // The transport drops: the socket reconnects and keeps reporting its last id.
        _ = machine.transportClosed(willReconnect: true)
        machine.setStatus(.connecting)
        #expect(machine.sid == nil)
        #expect(machine.reportedSID == "a")
        _ = machine.reportDisconnected()
        #expect(machine.reportedSID == "")
        // A second report of the same status changes nothing.
        _ = machine.reportDisconnected()
        #expect(machine.reportedSID == "")
    }

    @Test func aConnectAsTheEntryPointsReportIt() throws {
        var machine = NamespaceStateMachine(namespace: "/admin")
        // `connect(withPayload:)` sets connecting before the transport opens.
        #expect(machine.startConnecting() == true)
        #expect(machine.status == .connecting)
        // Set (and reported) again while connecting, as upstream's `didSet`.
        #expect(machine.startConnecting() == true)
        #expect(machine.connect(auth: ["token": "t"]) == [])
        #expect(machine.transportOpened() == [.send(SocketPacket(type: .connect, namespace: "/admin", data: ["token": "t"]))])
        let early = try self.packet(#"2/admin,["early"]"#)
        #expect(machine.receive(early) == [])
        #expect(machine.receive(try self.packet(#"0/admin,{"sid":"s1"}"#)) == [.connected(sid: "s1")])
        #expect(machine.status == .connecting)
        // `didConnect` reports it; the buffered event is delivered then (before `connect`).
        #expect(machine.reportConnected(sid: "s1") == [.deliverEvent(early)])
        #expect(machine.status == .connected)
        #expect(machine.sid == "s1")
        // Connected: neither a second connect nor a second report.
        #expect(machine.startConnecting() == false)
        #expect(machine.reportConnected(sid: "s1") == nil)
        #expect(machine.status == .connected)
    }

    @Test func theConnectTimeoutDisconnectsAndTheLeaveStillSendsDisconnect() {
        var machine = NamespaceStateMachine(namespace: "/admin")
        #expect(machine.startConnecting() == true)
        _ = machine.transportOpened()
        #expect(machine.connect(auth: nil) == [.send(SocketPacket(type: .connect, namespace: "/admin"))])
        #expect(machine.connectTimedOut() == true)
        #expect(machine.status == .disconnected)
        #expect(machine.connectTimedOut() == false)
        // The leave that follows tells the server, and its `didDisconnect` reports nothing new.
        #expect(machine.disconnect() == [.send(SocketPacket(type: .disconnect, namespace: "/admin")), .disconnected(.clientDisconnect)])
        #expect(machine.reportDisconnected() == false)
        #expect(machine.status == .disconnected)
    }

    @Test func theConnectTimeoutAppliesOnlyToANotConnectedOrConnectingSocket() {
        var fresh = NamespaceStateMachine(namespace: "/")
        #expect(fresh.connectTimedOut() == true)
        #expect(fresh.status == .disconnected)

        var connected = NamespaceStateMachine(namespace: "/")
        _ = connected.reportConnected(sid: nil)
        #expect(connected.connectTimedOut() == false)
        #expect(connected.status == .connected)
    }

    @Test func aSimulatedConnectJoinsSoAReconnectRejoins() {
        // A test calls `didConnect(toNamespace:payload:)` on a socket that never joined.
        var machine = NamespaceStateMachine(namespace: "/")
        #expect(machine.reportConnected(sid: nil) == [])
        #expect(machine.status == .connected)
        #expect(machine.isConnected)
        // The engine closes and reconnects: the socket goes back to connecting and rejoins.
        #expect(machine.transportClosed(willReconnect: true) == [.reconnecting])
        machine.setStatus(.connecting)  // `setReconnecting(reason:)`
        #expect(machine.status == .connecting)
        #expect(machine.transportOpened() == [.send(SocketPacket(type: .connect))])
    }

    @Test func aSimulatedConnectBeforeTheAcknowledgementDeliversWhatWasBuffered() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.startConnecting()
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        let first = try self.packet(#"2["one"]"#)
        let ack = try self.packet(#"30[]"#)
        #expect(machine.receive(first) == [])
        #expect(machine.receive(ack) == [])
        #expect(machine.reportConnected(sid: "fake") == [.deliverEvent(first), .deliverAck(ack)])
        #expect(machine.sid == "fake")
        // The real acknowledgement is a duplicate now.
        #expect(machine.receive(try self.packet(#"0{"sid":"real"}"#)) == [])
        let second = try self.packet(#"2["two"]"#)
        #expect(machine.receive(second) == [.deliverEvent(second)])
    }

    @Test func aSimulatedDisconnectLeavesAConnectedNamespaceSoTheNextConnectRejoins() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0{"sid":"a"}"#))
        _ = machine.reportConnected(sid: "a")
        // `didDisconnect(reason:)` called directly: nothing is sent (as upstream).
        #expect(machine.reportDisconnected() == true)
        #expect(machine.status == .disconnected)
        #expect(!machine.isConnected)
        #expect(machine.receive(try self.packet(#"2["x"]"#)) == [])
        #expect(machine.reportDisconnected() == false)
        // A later connect sends CONNECT again.
        #expect(machine.startConnecting() == true)
        #expect(machine.connect(auth: nil) == [.send(SocketPacket(type: .connect))])
    }

    @Test func aSimulatedDisconnectLetsAWaitingConnectFinish() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.startConnecting()
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        #expect(machine.reportDisconnected() == true)
        #expect(machine.isConnecting)
        // The acknowledgement still connects the socket, as upstream's `handlePacket` does.
        #expect(machine.receive(try self.packet(#"0{"sid":"late"}"#)) == [.connected(sid: "late")])
        #expect(machine.reportConnected(sid: "late") == [])
        #expect(machine.status == .connected)
    }

    @Test func aRefusedConnectDisconnectsAConnectingSocketOnly() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.startConnecting()
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        #expect(machine.receive(try self.packet(#"4{"message":"no"}"#)) == [.connectError(message: "no", data: nil)])
        #expect(machine.status == .connecting)
        #expect(machine.connectRefused() == true)
        #expect(machine.status == .disconnected)
        #expect(machine.connectRefused() == false)
        // Retry.
        #expect(machine.startConnecting() == true)
        #expect(machine.connect(auth: nil) == [.send(SocketPacket(type: .connect))])

        var fresh = NamespaceStateMachine(namespace: "/")
        #expect(fresh.connectRefused() == false)
        #expect(fresh.status == .notConnected)
    }

    @Test func setStatusIsAnUnconditionalReportThatLeavesTheProtocolAlone() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0{"sid":"a"}"#))
        _ = machine.reportConnected(sid: "a")
        // `setReconnecting(reason:)` called directly on a live socket.
        machine.setStatus(.connecting)
        #expect(machine.status == .connecting)
        #expect(machine.isConnected)
        #expect(machine.sid == "a")
        // A connect report brings it back without touching the namespace.
        #expect(machine.reportConnected(sid: "b") == [])
        #expect(machine.sid == "a")
        machine.setStatus(.notConnected)
        #expect(machine.status == .notConnected)
        #expect(machine.isConnected)
    }

    @Test func aReconnectAsTheEntryPointsReportIt() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.startConnecting()
        _ = machine.transportOpened()
        _ = machine.connect(auth: ["token": "t"])
        _ = machine.receive(try self.packet(#"0{"sid":"a"}"#))
        _ = machine.reportConnected(sid: "a")
        #expect(machine.transportClosed(willReconnect: true) == [.reconnecting])
        // Until `setReconnecting` reports it, the socket still says connected.
        #expect(machine.status == .connected)
        machine.setStatus(.connecting)
        #expect(machine.transportOpened() == [.send(SocketPacket(type: .connect, data: ["token": "t"]))])
        #expect(machine.receive(try self.packet(#"0{"sid":"b"}"#)) == [.connected(sid: "b")])
        #expect(machine.reportConnected(sid: "b") == [])
        #expect(machine.status == .connected)
        // The engine closes for good.
        #expect(machine.transportClosed(willReconnect: false) == [.disconnected(.transportClose)])
        #expect(machine.reportDisconnected() == true)
        #expect(machine.status == .disconnected)
    }
}
