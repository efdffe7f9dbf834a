import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// The opt-in send buffer (socket.io-client's `sendBuffer`) and volatile emits, in the machine.
@Suite struct NamespaceSendBufferTests {
    let decoder = SocketPacketDecoder()

    func packet(_ text: String) throws -> SocketPacket {
        try self.decoder.decode(text)
    }

    func event(_ name: String) -> SocketPacket {
        SocketPacket(type: .event, data: [.string(name)])
    }

    @Test func withoutABufferAnEmitWhileConnectingFailsAsUpstream() {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.startConnecting()
        _ = machine.connect(auth: nil)
        #expect(machine.emit(self.event("a"), writeID: 0, volatile: false) == .notConnected)
        #expect(machine.emit(self.event("v"), writeID: nil, volatile: true) == .dropped)
    }

    @Test func keptEmitsGoOutInOrderAfterTheEarlyEventsAndTheOverflowIsRefused() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        machine.maximumSendBuffer = 2
        // Not connecting: refused even with a buffer.
        #expect(machine.emit(self.event("x"), writeID: 9, volatile: false) == .notConnected)
        _ = machine.transportOpened()
        _ = machine.startConnecting()
        _ = machine.connect(auth: nil)
        #expect(machine.emit(self.event("a"), writeID: 0, volatile: false) == .buffered)
        #expect(machine.emit(self.event("v"), writeID: nil, volatile: true) == .dropped)
        #expect(machine.emit(self.event("b"), writeID: nil, volatile: false) == .buffered)
        #expect(machine.emit(self.event("c"), writeID: 2, volatile: false) == .bufferFull(limit: 2))
        let early = try self.packet(#"2["early"]"#)
        _ = machine.receive(early)
        #expect(machine.receive(try self.packet(#"0{"sid":"S"}"#)) == [.connected(sid: "S")])
        // socket.io-client's emitBuffered: the receive buffer, then the send buffer.
        #expect(
            machine.reportConnected(sid: "S")
                == [.deliverEvent(early), .sendBuffered(self.event("a"), writeID: 0), .sendBuffered(self.event("b"), writeID: nil)])
        #expect(machine.sendBufferFlushed() == [])  // the socket sent them
        #expect(machine.emit(self.event("d"), writeID: 3, volatile: false) == .send)
        #expect(machine.emit(self.event("v"), writeID: nil, volatile: true) == .send)
    }

    @Test func aReconnectionKeepsEmitsAndSendsThemOnTheRejoin() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        machine.maximumSendBuffer = 10
        _ = machine.transportOpened()
        _ = machine.startConnecting()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0{"sid":"S"}"#))
        _ = machine.reportConnected(sid: "S")
        #expect(machine.transportClosed(willReconnect: true) == [.reconnecting])
        // Still reported connected until the socket's setReconnecting: kept all the same.
        #expect(machine.emit(self.event("a"), writeID: 0, volatile: false) == .buffered)
        machine.setStatus(.connecting)
        #expect(machine.emit(self.event("b"), writeID: 1, volatile: false) == .buffered)
        _ = machine.transportOpened()
        _ = machine.receive(try self.packet(#"0{"sid":"S2"}"#))
        #expect(machine.reportConnected(sid: "S2") == [.sendBuffered(self.event("a"), writeID: 0), .sendBuffered(self.event("b"), writeID: 1)])
    }

    @Test(arguments: ["leave", "refused", "transport", "server"])
    func everyWayOutButConnectedDiscardsTheKeptEmits(_ way: String) throws {
        var machine = NamespaceStateMachine(namespace: "/")
        machine.maximumSendBuffer = 10
        _ = machine.transportOpened()
        _ = machine.startConnecting()
        _ = machine.connect(auth: nil)
        _ = machine.emit(self.event("a"), writeID: 0, volatile: false)
        _ = machine.emit(self.event("b"), writeID: nil, volatile: false)
        let actions: [NamespaceAction]
        switch way {
        case "leave": actions = machine.disconnect()
        case "refused": actions = machine.receive(try self.packet(#"4{"message":"no"}"#))
        case "transport": actions = machine.transportClosed(willReconnect: false)
        default: actions = machine.receive(try self.packet("1"))
        }
        #expect(actions.last == .discardBuffered(writeIDs: [0, nil]))
        // Nothing is flushed by a later connection.
        _ = machine.transportOpened()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0{"sid":"S"}"#))
        #expect(machine.reportConnected(sid: "S") == [])
    }

    /// Connected, but the kept emits not sent yet: an emit made meanwhile (on another thread)
    /// goes after them, never before.
    @Test func anEmitDuringTheFlushGoesAfterTheKeptOnes() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        machine.maximumSendBuffer = 10
        _ = machine.transportOpened()
        _ = machine.startConnecting()
        _ = machine.connect(auth: nil)
        _ = machine.emit(self.event("a"), writeID: 0, volatile: false)
        _ = machine.receive(try self.packet(#"0{"sid":"S"}"#))
        #expect(machine.reportConnected(sid: "S") == [.sendBuffered(self.event("a"), writeID: 0)])
        // Reported connected, "a" handed out but not sent yet: "b" joins the buffer.
        #expect(machine.emit(self.event("b"), writeID: 1, volatile: false) == .buffered)
        #expect(machine.emit(self.event("v"), writeID: nil, volatile: true) == .send)  // volatile: no order promise
        #expect(machine.sendBufferFlushed() == [.sendBuffered(self.event("b"), writeID: 1)])
        #expect(machine.sendBufferFlushed() == [])
        #expect(machine.emit(self.event("c"), writeID: 2, volatile: false) == .send)
    }

    /// Between the CONNECT acknowledgement and the socket's `connected` report, emits are kept
    /// (they go out with the flush), not refused.
    @Test func anEmitBetweenTheAcknowledgementAndTheReportIsKept() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        machine.maximumSendBuffer = 10
        _ = machine.transportOpened()
        _ = machine.startConnecting()
        _ = machine.connect(auth: nil)
        _ = machine.receive(try self.packet(#"0{"sid":"S"}"#))
        #expect(machine.keepsEmits)
        #expect(machine.emit(self.event("a"), writeID: 0, volatile: false) == .buffered)
        #expect(machine.reportConnected(sid: "S") == [.sendBuffered(self.event("a"), writeID: 0)])
        #expect(machine.sendBufferFlushed() == [])
        #expect(!machine.keepsEmits)
    }
}
