import RealtimeTime
import Testing

@testable import EngineIOProtocol

/// The machine's protocol rules its owner used to keep: which send carries which numbered
/// write (every path), the packet cap per POST, and heartbeat traffic reported as actions.
@Suite struct EngineClientWriteIDTests {
    let t0 = MonotonicInstant.now
    static let sid = "s1"
    static let openText = #"{"sid":"s1","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#
    static var handshake: EngineHandshake {
        EngineHandshake(sid: Self.sid, upgrades: ["websocket"], pingInterval: .seconds(25), pingTimeout: .seconds(20), maxPayload: 1_000_000)
    }

    static func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    func open(_ configuration: EngineClientStateMachine.Configuration) -> EngineClientStateMachine {
        var machine = EngineClientStateMachine(configuration: configuration)
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Self.body("0" + Self.openText), now: self.t0)
        return machine
    }

    @Test func writesBeforeTheHandshakeAreCarriedByTheFirstPOST() {
        var machine = EngineClientStateMachine(configuration: .init(forcePolling: true))
        _ = machine.start()
        #expect(machine.send([.message("a")], writeID: 0) == [])
        #expect(machine.send([.message("b"), .binaryMessage([1])], writeID: 1) == [])
        #expect(
            machine.pollingGETCompleted(body: Self.body("0" + Self.openText), now: self.t0) == [
                .opened(Self.handshake),
                .scheduleHeartbeatTimeout(self.t0 + .seconds(45)),
                .sendPollingPOST(sid: Self.sid, body: Self.body("4a\u{1E}4b\u{1E}bAQ==")),
                .carriesWrites(through: 1),
                .sendPollingGET(sid: Self.sid),
            ])
    }

    @Test func writesBehindAPOSTInFlightAreCarriedByTheNextAndUnnumberedOnesCarryNothing() {
        var machine = self.open(.init(forcePolling: true))
        #expect(
            machine.send([.message("a")], writeID: 7) == [
                .sendPollingPOST(sid: Self.sid, body: Self.body("4a")), .carriesWrites(through: 7),
            ])
        #expect(machine.send([.message("b")], writeID: 8) == [])
        #expect(machine.send([.message("c")], writeID: nil) == [])
        #expect(
            machine.pollingPOSTCompleted(now: self.t0) == [
                .sendPollingPOST(sid: Self.sid, body: Self.body("4b\u{1E}4c")), .carriesWrites(through: 8),
            ])
        #expect(machine.send([.message("d")]) == [])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.sendPollingPOST(sid: Self.sid, body: Self.body("4d"))])
    }

    @Test func thePacketCapSplitsPOSTsAndTheWriteIsCarriedByTheOneWithItsLastPacket() {
        var machine = self.open(.init(forcePolling: true, maximumPacketsPerPOST: 2))
        #expect(machine.send([.message("a")], writeID: 0).count == 2)
        // A write of three packets (an event and two attachments), then one more write.
        #expect(machine.send([.message("b"), .binaryMessage([1]), .binaryMessage([2])], writeID: 1) == [])
        #expect(machine.send([.message("c")], writeID: 2) == [])
        #expect(
            machine.pollingPOSTCompleted(now: self.t0) == [
                .sendPollingPOST(sid: Self.sid, body: Self.body("4b\u{1E}bAQ=="))
            ])
        #expect(
            machine.pollingPOSTCompleted(now: self.t0) == [
                .sendPollingPOST(sid: Self.sid, body: Self.body("bAg==\u{1E}4c")), .carriesWrites(through: 2),
            ])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [])
    }

    @Test func theDefaultCapIsSixteenPackets() {
        // python-engineio refuses a POST of more than 16 packets.
        #expect(EngineClientStateMachine.Configuration.pythonEngineIOPacketsPerPOST == 16)
        var machine = self.open(.init(forcePolling: true, maximumPacketsPerPOST: 16))
        _ = machine.send([.message("first")], writeID: 0)
        for index in 1...20 {
            #expect(machine.send([.message("\(index)")], writeID: index) == [])
        }
        let next = machine.pollingPOSTCompleted(now: self.t0)
        #expect(
            next == [
                .sendPollingPOST(sid: Self.sid, body: Self.body((1...16).map { "4\($0)" }.joined(separator: "\u{1E}"))),
                .carriesWrites(through: 16),
            ])
    }

    @Test func writesOverTheWebSocketAndInTheUpgradeWindowAreCarried() {
        var machine = self.open(.init())
        // The upgrade starts with the handshake; a write goes in a POST meanwhile.
        #expect(
            machine.send([.message("a")], writeID: 0) == [
                .sendPollingPOST(sid: Self.sid, body: Self.body("4a")), .carriesWrites(through: 0),
            ])
        _ = machine.webSocketOpened(now: self.t0)
        #expect(machine.webSocketReceived(.text("3probe"), now: self.t0) == [])
        // Paused: writes wait for `5`.
        #expect(machine.send([.message("b")], writeID: 1) == [])
        _ = machine.pollingPOSTCompleted(now: self.t0)
        #expect(
            machine.pollingGETCompleted(body: Self.body("6"), now: self.t0) == [
                .sendWebSocketFrames([.text("5"), .text("4b")]), .carriesWrites(through: 1), .upgraded,
            ])
        #expect(
            machine.send([.message("c"), .binaryMessage([9])], writeID: 2) == [
                .sendWebSocketFrames([.text("4c"), .binary([9])]), .carriesWrites(through: 2),
            ])
        // After a close nothing is carried.
        _ = machine.close()
        #expect(machine.send([.message("d")], writeID: 3) == [])
    }

    @Test func pingsAreReportedAfterThePongWhenAsked() {
        var machine = self.open(.init(forcePolling: true, reportsPings: true))
        let t1 = self.t0 + .seconds(25)
        #expect(
            machine.pollingGETCompleted(body: Self.body("2\u{1E}2"), now: t1) == [
                .scheduleHeartbeatTimeout(t1 + .seconds(45)),
                .sendPollingPOST(sid: Self.sid, body: Self.body("3")),
                .pingReceived,
                .scheduleHeartbeatTimeout(t1 + .seconds(45)),
                .pingReceived,
                .sendPollingGET(sid: Self.sid),
            ])
        // Without the option: no reports (the narrated sessions in EngineClientStateMachineTests).
        var quiet = self.open(.init(forcePolling: true))
        #expect(!quiet.pollingGETCompleted(body: Self.body("2"), now: t1).contains(.pingReceived))
    }

    @Test func aVersionThreeClientPingIsReportedAsSent() {
        var machine = EngineClientStateMachine(configuration: .init(protocolVersion: .v3, reportsPings: true))
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Array(#"66:0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}"#.utf8), now: self.t0)
        #expect(
            machine.heartbeatTimerFired(now: self.t0 + .seconds(25)) == [
                .sendPollingPOST(sid: "s", body: Array("1:2".utf8)),
                .pingSent,
                .scheduleHeartbeatTimeout(self.t0 + .seconds(30)),
            ])
    }
}
