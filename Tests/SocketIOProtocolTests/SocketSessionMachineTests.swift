import RealtimeTime
import Testing

@testable import SocketIOProtocol

/// The manager's session machine with no I/O: messages in, packets out (whole, split across
/// attachments, interleaved, cut by a close), the bound on queued work deciding the reading
/// thread, and reconnection with every timer a deadline from the input's `now`.
@Suite struct SocketSessionMachineTests {
    static let start = MonotonicInstant(nanosecondsSinceOrigin: 1_000_000_000)
    static let noJitter = SocketSessionMachine.Reconnection(wait: 1, waitMax: 5, randomizationFactor: 0)

    static let binaryEvent = #"52-/admin,["up",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#
    static let assembled = SocketPacket(
        type: .binaryEvent, namespace: "/admin", data: ["up", .binary([1]), .binary([2, 3])], attachmentCount: 2)

    @Test func aTextPacketIsDeliveredOnTheReadingThreadWhileNothingIsQueued() {
        var session = SocketSessionMachine(wire: .json, revision: .v5)
        #expect(session.receive(text: #"2["e",1]"#) == .deliver(SocketPacket(type: .event, data: ["e", 1]), direct: true))
        // Work queued on handleQueue: the next packet goes behind it.
        #expect(session.workQueued() == nil)
        #expect(session.receive(text: #"2["f"]"#) == .deliver(SocketPacket(type: .event, data: ["f"]), direct: false))
        #expect(session.workRan() == nil)
        #expect(session.receive(text: #"2["g"]"#) == .deliver(SocketPacket(type: .event, data: ["g"]), direct: true))
    }

    @Test func aBinaryPacketFedWholeOrSplitIsTheSamePacket() {
        // Whole: the text and its attachments back to back.
        var whole = SocketSessionMachine(wire: .json, revision: .v5)
        #expect(whole.receive(text: Self.binaryEvent) == nil)
        #expect(whole.receive(binary: [1]) == nil)
        #expect(whole.receive(binary: [2, 3]) == .deliver(Self.assembled, direct: true))

        // Split: other packets arrive between the attachments (socket.io-client-swift's
        // interleaving) and handler work is queued meanwhile.
        var split = SocketSessionMachine(wire: .json, revision: .v5)
        #expect(split.receive(text: Self.binaryEvent) == nil)
        #expect(split.receive(binary: [1]) == nil)
        #expect(split.receive(text: #"2["between"]"#) == .deliver(SocketPacket(type: .event, data: ["between"]), direct: true))
        #expect(split.waitingPackets.count == 1 && split.waitingPackets[0].attachments == [[1]])
        _ = split.workQueued()
        #expect(split.receive(binary: [2, 3]) == .deliver(Self.assembled, direct: false))
        #expect(split.waitingPackets.isEmpty)
    }

    @Test func aCloseEndsAPartialPacketAndAStrayAttachmentIsRejected() {
        var session = SocketSessionMachine(wire: .json, revision: .v5)
        #expect(session.receive(text: Self.binaryEvent) == nil)
        #expect(session.receive(binary: [1]) == nil)
        session.engineClosed()
        #expect(session.waitingPackets.isEmpty)
        #expect(session.receive(binary: [2, 3]) == .rejected(.unexpectedAttachment))
        #expect(session.receive(text: "9") == .rejected(.unknownPacketType(UInt8(ascii: "9"))))
        // The session reads on.
        #expect(session.receive(text: "0") == .deliver(SocketPacket(type: .connect), direct: true))
    }

    @Test func atMostSixteenBinaryPacketsWait() {
        var session = SocketSessionMachine(wire: .json, revision: .v5)
        for index in 0..<20 {
            #expect(session.receive(text: #"51-["e\#(index)",{"_placeholder":true,"num":0}]"#) == nil)
        }
        #expect(session.waitingPackets.count == SocketSessionMachine.maximumWaitingPackets)
        // The newest gets the next attachment; the oldest four were dropped.
        #expect(session.waitingPackets.first?.packet.eventName == "e4")
        if case .deliver(let packet, _)? = session.receive(binary: [7]) {
            #expect(packet.eventName == "e19")
        } else {
            Issue.record("no packet")
        }
    }

    @Test func theRevisionDecidesWhatTypeFourIs() {
        var session = SocketSessionMachine(wire: .json, revision: .v5)
        // v5: CONNECT_ERROR needs an object or a string.
        #expect(session.receive(text: "4[1,2]") == .rejected(.invalidPayload(.connectError)))
        session.setRevision(.v4)
        // v4 (Socket.IO 2.x): ERROR with any JSON.
        #expect(session.receive(text: "4[1,2]") == .deliver(SocketPacket(type: .connectError, data: [1, 2]), direct: true))
    }

    @Test func theMessagePackWireDecodesBinaryMessagesAndIgnoresText() throws {
        var session = SocketSessionMachine(wire: .messagePack, revision: .v5)
        let packet = SocketPacket(type: .event, namespace: "/chat", ackID: 3, data: ["hi", .binary([9, 9])])
        #expect(session.receive(binary: try SocketMessagePackEncoder.encode(packet)) == .deliver(packet, direct: true))
        #expect(session.receive(text: #"2["hi"]"#) == .textIgnored(bytes: 7))
        #expect(session.receive(binary: [0xC1]) != nil)
        if case .rejected(.invalidMessagePack)? = session.receive(binary: [0xC1]) {} else { Issue.record("not rejected") }
        // An app's own attachment goes to the reader whatever the wire: none waits here.
        #expect(throws: SocketProtocolError.unexpectedAttachment) { try session.attach([1]) }
    }

    @Test func queuedWorkPausesReadingAtTheBoundAndResumesAtHalf() {
        var session = SocketSessionMachine(wire: .json, revision: .v5, backlog: InboundBacklog(pauseAt: 4))
        #expect([session.workQueued(), session.workQueued(), session.workQueued()] == [nil, nil, nil])
        #expect(session.workQueued() == .pauseReading)
        #expect(session.readingPaused && session.backlogPending == 4)
        #expect(session.workQueued() == nil)
        #expect([session.workRan(), session.workRan()] == [nil, nil])
        #expect(session.workRan() == .resumeReading)
        #expect(!session.readingPaused && session.backlogPeak == 5)
    }

    @Test func everyTryIsADeadlineFromTheInputsTime() {
        var session = SocketSessionMachine(wire: .json, revision: .v5)
        let connects = session.connectRequested()
        #expect(connects)
        #expect(session.transportOpened() == [.rejoin])
        #expect(session.status == .connected)
        // Each open and each try numbers the timer anew (the open's number was 1).
        #expect(
            session.transportClosed(now: Self.start, reconnection: Self.noJitter, random: 0) == [
                .beginReconnecting, .attempt(eventValue: -1), .armRetryTimer(at: Self.start + .seconds(1.5), timer: 2),
            ])
        #expect(session.status == .notConnected && session.isReconnecting)
        // The failed try's engine closes too: nothing new.
        #expect(session.transportClosed(now: Self.start, reconnection: Self.noJitter, random: 0) == [])
        // The next deadline counts from when the timer fired, with the delay grown.
        let fired = Self.start + .seconds(2)
        #expect(
            session.retryTimerFired(2, now: fired, reconnection: Self.noJitter, random: 0) == [
                .attempt(eventValue: -2), .armRetryTimer(at: fired + .seconds(2.25), timer: 3),
            ])
        // A stale timer does nothing.
        #expect(session.retryTimerFired(2, now: fired, reconnection: Self.noJitter, random: 0) == [])
        #expect(session.transportOpened() == [.rejoin])
        #expect(!session.isReconnecting)
    }

    @Test func settingsGivenWithAnInputApplyToThatDecision() {
        var session = SocketSessionMachine(wire: .json, revision: .v5)
        _ = session.connectRequested()
        _ = session.transportOpened()
        var limited = Self.noJitter
        limited.attempts = 1
        #expect(
            session.transportClosed(now: Self.start, reconnection: limited, random: 0) == [
                .beginReconnecting, .attempt(eventValue: 1), .armRetryTimer(at: Self.start + .seconds(1.5), timer: 2),
            ])
        // The budget of one try is spent at the next timer.
        #expect(session.retryTimerFired(2, now: Self.start, reconnection: limited, random: 0) == [.giveUp])
        #expect(session.status == .disconnected && !session.isReconnecting)

        // `reconnects` off when the engine closes: disconnect, no try.
        var off = Self.noJitter
        off.reconnects = false
        _ = session.connectRequested()
        _ = session.transportOpened()
        #expect(session.transportClosed(now: Self.start, reconnection: off, random: 0) == [.disconnect])
    }

    @Test func aUserDisconnectEndsReconnecting() {
        var session = SocketSessionMachine(wire: .json, revision: .v5)
        #expect(session.wouldConnect)
        let first = session.connectRequested()
        #expect(first)
        // A first connect under way holds another back, and the probe says so without a change.
        #expect(!session.wouldConnect)
        let second = session.connectRequested()
        #expect(!second)
        _ = session.transportOpened()
        _ = session.transportClosed(now: Self.start, reconnection: Self.noJitter, random: 0)
        // A reconnect try under way does not hold a new connect back (upstream PR #1375).
        #expect(session.wouldConnect)
        session.disconnectRequested()
        #expect(session.status == .disconnected && !session.isReconnecting)
        #expect(session.retryTimerFired(1, now: Self.start, reconnection: Self.noJitter, random: 0) == [])
        #expect(session.transportClosed(now: Self.start, reconnection: Self.noJitter, random: 0) == [.disconnect])
    }
}
