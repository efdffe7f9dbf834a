import RealtimeTime
import Testing

@testable import EngineIOProtocol

/// The machine's one `State` enum through a session's life: each input moves it to the case
/// that holds what is true then, and the observers read it from there.
@Suite struct EngineClientStateTransitionTests {
    typealias Machine = EngineClientStateMachine
    let t0 = MonotonicInstant.now
    static let handshake = EngineHandshake(
        sid: "s1", upgrades: ["websocket"], pingInterval: .seconds(25), pingTimeout: .seconds(20), maxPayload: 1_000_000)
    static let openBody = Array(#"0{"sid":"s1","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#.utf8)

    @Test func pollingSessionWithUpgradeMovesThroughEveryCase() {
        var machine = Machine()
        #expect(machine.state == .idle)
        _ = machine.start()
        #expect(machine.state == .opening(.polling(getInFlight: true)))
        _ = machine.pollingGETCompleted(body: Self.openBody, now: self.t0)
        let deadline = self.t0 + .seconds(45)
        #expect(
            machine.state
                == .open(
                    .init(
                        handshake: Self.handshake, link: .polling(.init(getInFlight: true, upgrade: .connecting)),
                        heartbeatDeadline: deadline)))
        _ = machine.send([.message("a")])
        #expect(machine.polling == .init(getInFlight: true, postInFlight: true, upgrade: .connecting))
        _ = machine.webSocketOpened(now: self.t0)
        #expect(machine.upgrade == .probing)
        _ = machine.webSocketReceived(.text("3probe"), now: self.t0)
        #expect(machine.upgrade == .pausing)
        _ = machine.pollingPOSTCompleted(now: self.t0)
        #expect(machine.polling == .init(getInFlight: true, postInFlight: false, upgrade: .pausing))
        _ = machine.pollingGETCompleted(body: Array("6".utf8), now: self.t0)
        #expect(machine.state == .open(.init(handshake: Self.handshake, link: .webSocket, heartbeatDeadline: deadline)))
        #expect(machine.webSocketActive)
        _ = machine.close()
        #expect(machine.state == .closed(.init(reason: .clientClosed, transport: .webSocket, handshake: Self.handshake)))
        #expect(machine.sid == "s1")
        #expect(!machine.webSocketActive)
    }

    @Test func clientCloseOverPollingWaitsInClosingWithWhatIsInFlight() {
        var machine = Machine(configuration: .init(forcePolling: true))
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Self.openBody, now: self.t0)
        _ = machine.send([.message("a")])
        _ = machine.close()
        #expect(
            machine.state
                == .closing(.init(handshake: Self.handshake, getInFlight: true, postInFlight: true, heartbeatDeadline: self.t0 + .seconds(45))))
        // Writes while closing are dropped; late reports for the GET only clear its flag.
        #expect(machine.send([.message("b")]) == [])
        #expect(machine.pollingGETCompleted(body: Array("4x".utf8), now: self.t0) == [])
        #expect(!machine.isPollingGETInFlight)
        // The POST with `a` done: the POST with `1` goes; once it is done, closed.
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.sendPollingPOST(sid: "s1", body: Array("1".utf8))])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.cancelHeartbeatTimeout, .closed(.clientClosed)])
        #expect(machine.state == .closed(.init(reason: .clientClosed, transport: .polling, handshake: Self.handshake)))
    }

    @Test func aFailedHandshakeGETClosesWithoutCancellingIt() {
        var machine = Machine()
        _ = machine.start()
        #expect(machine.pollingGETFailed(reason: "refused") == [.closed(.transportError("refused"))])
        #expect(machine.state == .closed(.init(reason: .transportError("refused"), transport: .polling, handshake: nil)))
        // Late reports are ignored.
        #expect(machine.pollingGETCompleted(body: Self.openBody, now: self.t0) == [])
        #expect(machine.webSocketFailed(reason: "x") == [])
        #expect(machine.heartbeatTimerFired(now: self.t0 + .seconds(100)) == [])
    }

    @Test func aWebSocketOnlySessionOpensFromTheOpeningWebSocketCase() {
        var machine = Machine(configuration: .init(forceWebSockets: true))
        _ = machine.start()
        #expect(machine.state == .opening(.webSocket))
        #expect(machine.webSocketActive)
        #expect(machine.currentTransport == .webSocket)
        #expect(machine.webSocketOpened(now: self.t0) == [])
        _ = machine.webSocketReceived(.text(String(decoding: Self.openBody, as: UTF8.self)), now: self.t0)
        #expect(machine.state == .open(.init(handshake: Self.handshake, link: .webSocket, heartbeatDeadline: self.t0 + .seconds(45))))
        // A failed socket ends the session and is not closed again.
        #expect(machine.webSocketFailed(reason: "gone") == [.cancelHeartbeatTimeout, .closed(.transportError("gone"))])
    }

    @Test func versionThreeKeepsTheNextPingInTheSession() {
        var machine = Machine(configuration: .init(forcePolling: true, protocolVersion: .v3))
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Array(#"66:0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}"#.utf8), now: self.t0)
        guard case .open(let session) = machine.state else {
            Issue.record("not open: \(machine.state)")
            return
        }
        #expect(session.nextPingAt == self.t0 + .seconds(25))
        _ = machine.heartbeatTimerFired(now: self.t0 + .seconds(25))
        guard case .open(let pinged) = machine.state else { return }
        #expect(pinged.nextPingAt == nil)
        #expect(pinged.heartbeatDeadline == self.t0 + .seconds(30))
    }
}
