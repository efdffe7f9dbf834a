import RealtimeTime
import TestSupport
import Testing

@testable import EngineIOProtocol

/// Narrated Engine.IO v4 sessions (engine.io-protocol v4, "Protocol"), asserting every action.
@Suite struct EngineClientStateMachineTests {
    let t0 = MonotonicInstant.now
    static let openText = #"{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#
    static let sid = "lv_VI97HAXpY6yYWAAAC"
    static var handshake: EngineHandshake {
        EngineHandshake(sid: Self.sid, upgrades: ["websocket"], pingInterval: .seconds(25), pingTimeout: .seconds(20), maxPayload: 1_000_000)
    }

    static func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A polling session past its handshake, with the GET after the handshake in flight.
    func openPollingSession(forcePolling: Bool = true) -> EngineClientStateMachine {
        var machine = EngineClientStateMachine(configuration: .init(forcePolling: forcePolling))
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Self.body("0" + Self.openText), now: self.t0)
        return machine
    }

    // MARK: Polling

    @Test func pollingHandshakeMessagesAndHeartbeat() {
        var machine = EngineClientStateMachine(configuration: .init(forcePolling: true))
        // The handshake GET carries no sid.
        #expect(machine.start() == [.sendPollingGET(sid: nil)])
        #expect(machine.start() == [])
        // Writes before the handshake wait for it.
        #expect(machine.send(.message("early")) == [])
        // The server answers with the open packet (and, here, a message in the same body).
        #expect(
            machine.pollingGETCompleted(body: Self.body("0" + Self.openText + "\u{1E}4hi"), now: self.t0) == [
                .opened(Self.handshake),
                .scheduleHeartbeatTimeout(self.t0 + .seconds(45)),
                .sendPollingPOST(sid: Self.sid, body: Self.body("4early")),
                .deliverMessage("hi"),
                .sendPollingGET(sid: Self.sid),
            ])
        #expect(machine.isOpen && machine.sid == Self.sid && machine.currentTransport == .polling)
        // One POST in flight: later writes are buffered, then sent joined.
        #expect(machine.send(.message("a")) == [])
        #expect(machine.send([.message("b"), .binaryMessage([1, 2, 3, 4])]) == [])
        #expect(
            machine.pollingPOSTCompleted(now: self.t0) == [
                .sendPollingPOST(sid: Self.sid, body: Self.body("4a\u{1E}4b\u{1E}bAQIDBA=="))
            ])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [])
        #expect(!machine.isPollingPOSTInFlight)
        // A duplicate completion report is ignored.
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [])
        // The server pings: the client answers `3` and re-arms the liveness timer.
        let t1 = self.t0 + .seconds(25)
        #expect(
            machine.pollingGETCompleted(body: Self.body("2"), now: t1) == [
                .scheduleHeartbeatTimeout(t1 + .seconds(45)),
                .sendPollingPOST(sid: Self.sid, body: Self.body("3")),
                .sendPollingGET(sid: Self.sid),
            ])
        // Spec example body: message, ping, message; plus a binary message.
        let t2 = t1 + .seconds(1)
        #expect(
            machine.pollingGETCompleted(body: Self.body("4hello\u{1E}2\u{1E}4world\u{1E}bAQIDBA=="), now: t2) == [
                .deliverMessage("hello"),
                .scheduleHeartbeatTimeout(t2 + .seconds(45)),
                .deliverMessage("world"),
                .deliverBinaryMessage([1, 2, 3, 4]),
                .sendPollingGET(sid: Self.sid),
            ])
        // The pong is buffered behind the POST still in flight, and sent when it completes.
        #expect(machine.pollingPOSTCompleted(now: t2) == [.sendPollingPOST(sid: Self.sid, body: Self.body("3"))])
        // A noop just re-polls.
        #expect(machine.pollingGETCompleted(body: Self.body("6"), now: t2) == [.sendPollingGET(sid: Self.sid)])
    }

    /// A hostile server's body of pings (or pings that outrun the POSTs) adds one pong, not
    /// one per ping: the buffer cannot grow with them.
    @Test func aPingFloodBuffersOnePong() {
        var machine = self.openPollingSession()
        let t1 = self.t0 + .seconds(1)
        // The first ping's pong goes out at once; the POST is in flight.
        let flood = Array(repeating: "2", count: 10_000).joined(separator: "\u{1E}")
        let actions = machine.pollingGETCompleted(body: Self.body(flood), now: t1)
        #expect(
            actions.filter { if case .sendPollingPOST = $0 { return true } else { return false } } == [
                .sendPollingPOST(sid: Self.sid, body: Self.body("3"))
            ])
        // The other 9,999 pings left one pong behind the POST in flight, and nothing more.
        #expect(machine.pollingPOSTCompleted(now: t1) == [.sendPollingPOST(sid: Self.sid, body: Self.body("3"))])
        #expect(machine.pollingPOSTCompleted(now: t1) == [])
        // A ping after that is answered again.
        #expect(
            machine.pollingGETCompleted(body: Self.body("2"), now: t1).contains(.sendPollingPOST(sid: Self.sid, body: Self.body("3"))))
    }

    @Test func postsAreSplitByMaxPayload() {
        var machine = EngineClientStateMachine(configuration: .init(forcePolling: true))
        _ = machine.start()
        _ = machine.pollingGETCompleted(
            body: Self.body(#"0{"sid":"s","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":12}"#), now: self.t0)
        #expect(machine.send(.message("first")) == [.sendPollingPOST(sid: "s", body: Self.body("4first"))])
        #expect(machine.send([.message("aaaa"), .message("bbbb"), .message("cccccccccccccccc")]) == [])
        // "4aaaa" (5) + RS + "4bbbb" (5) = 11 <= 12; the long one goes alone even though it is too big.
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.sendPollingPOST(sid: "s", body: Self.body("4aaaa\u{1E}4bbbb"))])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.sendPollingPOST(sid: "s", body: Self.body("4cccccccccccccccc"))])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [])
    }

    /// A packet longer than maxPayload as the transport encodes it: a polling record (`4` +
    /// text, `b` + base64 for binary) or a WebSocket frame (raw bytes for binary).
    @Test func oversizedPacketsAsTheTransportEncodesThem() {
        let open = #"0{"sid":"s","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":12}"#
        var polling = EngineClientStateMachine(configuration: .init(forcePolling: true))
        _ = polling.start()
        #expect(polling.oversizedPacket(in: [.message(String(repeating: "x", count: 50))]) == nil)  // no handshake yet
        _ = polling.pollingGETCompleted(body: Self.body(open), now: self.t0)
        #expect(polling.oversizedPacket(in: [.message("12345678901")]) == nil)  // "4" + 11 = 12
        #expect(polling.oversizedPacket(in: [.message("ok"), .message("123456789012")])! == (13, 12))
        #expect(polling.oversizedPacket(in: [.binaryMessage([UInt8](repeating: 1, count: 9))])! == (13, 12))  // "b" + 12

        var webSocket = EngineClientStateMachine(configuration: .init(forceWebSockets: true))
        _ = webSocket.start()
        _ = webSocket.webSocketOpened(now: self.t0)
        _ = webSocket.webSocketReceived(.text(open), now: self.t0)
        #expect(webSocket.oversizedPacket(in: [.binaryMessage([UInt8](repeating: 1, count: 12))]) == nil)
        #expect(webSocket.oversizedPacket(in: [.binaryMessage([UInt8](repeating: 1, count: 13))])! == (13, 12))
        #expect(webSocket.oversizedPacket(in: [.message("123456789012")])! == (13, 12))
    }

    @Test func heartbeatTimeoutWithoutPing() {
        var machine = self.openPollingSession()
        let deadline = self.t0 + .seconds(45)
        // A timer that fires early (or stale) re-arms for the real deadline.
        #expect(machine.heartbeatTimerFired(now: deadline - .milliseconds(1)) == [.scheduleHeartbeatTimeout(deadline)])
        #expect(
            machine.heartbeatTimerFired(now: deadline) == [
                .cancelPollingRequests,
                .cancelHeartbeatTimeout,
                .closed(.pingTimeout),
            ])
        #expect(machine.closeReason == .pingTimeout)
        // Everything after the close is ignored.
        #expect(machine.heartbeatTimerFired(now: deadline + .seconds(1)) == [])
        #expect(machine.pollingGETCompleted(body: Self.body("4late"), now: deadline) == [])
        #expect(machine.send(.message("x")) == [])
    }

    @Test func pingMovesTheDeadline() {
        var machine = self.openPollingSession()
        let t1 = self.t0 + .seconds(30)
        _ = machine.pollingGETCompleted(body: Self.body("2"), now: t1)
        #expect(machine.heartbeatTimerFired(now: self.t0 + .seconds(45)) == [.scheduleHeartbeatTimeout(t1 + .seconds(45))])
        #expect(machine.heartbeatTimerFired(now: t1 + .seconds(45)).last == .closed(.pingTimeout))
    }

    @Test func serverClosePacket() {
        var machine = self.openPollingSession()
        #expect(
            machine.pollingGETCompleted(body: Self.body("4bye\u{1E}1\u{1E}4ignored"), now: self.t0) == [
                .deliverMessage("bye"),
                .cancelHeartbeatTimeout,
                .closed(.serverClosed),
            ])
    }

    @Test func clientCloseSendsClosePacketInAPost() {
        var machine = self.openPollingSession()
        #expect(machine.close() == [.sendPollingPOST(sid: Self.sid, body: Self.body("1"))])
        #expect(machine.close() == [])
        #expect(machine.send(.message("dropped")) == [])
        // The pending GET may come back meanwhile; its content is ignored.
        #expect(machine.pollingGETCompleted(body: Self.body("4x"), now: self.t0) == [])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.cancelHeartbeatTimeout, .closed(.clientClosed)])
    }

    @Test func clientCloseWaitsForTheInFlightPostAndKeepsBufferedWrites() {
        var machine = self.openPollingSession()
        #expect(machine.send(.message("a")) == [.sendPollingPOST(sid: Self.sid, body: Self.body("4a"))])
        #expect(machine.send(.message("b")) == [])
        #expect(machine.close() == [])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.sendPollingPOST(sid: Self.sid, body: Self.body("4b\u{1E}1"))])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.cancelPollingRequests, .cancelHeartbeatTimeout, .closed(.clientClosed)])
    }

    /// A new attempt that starts while the close is under way: the close still reaches the
    /// server (its `POST` is kept, or sent on its own), and the machine ends as a client close.
    @Test func abandoningAClosingSessionKeepsItsClosePOST() {
        // The close went out in the POST in flight: keep it.
        var sent = self.openPollingSession()
        _ = sent.close()
        #expect(sent.abandon() == .init(keepsPOSTInFlight: true, keepsGETInFlight: true, closePOST: nil))
        #expect(sent.closeReason == .clientClosed)
        #expect(sent.abandon() == .nothing)
        #expect(sent.pollingPOSTCompleted(now: self.t0) == [])

        // The close waits behind a POST in flight: keep that one, and send `1` on its own.
        var waiting = self.openPollingSession()
        _ = waiting.send(.message("a"))
        _ = waiting.send(.message("b"))
        _ = waiting.close()
        #expect(waiting.abandon() == .init(keepsPOSTInFlight: true, keepsGETInFlight: true, closePOST: (Self.sid, Self.body("1"))))

        // The GET came back before the reconnection: nothing of it to keep.
        var answered = self.openPollingSession()
        _ = answered.close()
        _ = answered.pollingGETCompleted(body: Self.body("6"), now: self.t0)
        #expect(answered.abandon() == .init(keepsPOSTInFlight: true, keepsGETInFlight: false, closePOST: nil))
        #expect(waiting.closeReason == .clientClosed)

        // Not closing: an open session, one not started, one over WebSocket (its close frame
        // is already queued) have nothing to add.
        var open = self.openPollingSession()
        #expect(open.abandon() == .nothing)
        #expect(open.isOpen)
        var idle = EngineClientStateMachine()
        #expect(idle.abandon() == .nothing)
    }

    @Test func closeBeforeStartAndDuringHandshake() {
        var idle = EngineClientStateMachine()
        #expect(idle.close() == [.closed(.clientClosed)])
        #expect(idle.start() == [])
        var opening = EngineClientStateMachine()
        _ = opening.start()
        #expect(opening.close() == [.cancelPollingRequests, .closed(.clientClosed)])
    }

    @Test func transportErrorsClose() {
        var getFails = self.openPollingSession()
        _ = getFails.send(.message("a"))
        #expect(
            getFails.pollingGETFailed(reason: "HTTP 400") == [
                .cancelPollingRequests, .cancelHeartbeatTimeout, .closed(.transportError("HTTP 400")),
            ])
        var postFails = self.openPollingSession()
        _ = postFails.send(.message("a"))
        #expect(
            postFails.pollingPOSTFailed(reason: "reset") == [
                .cancelPollingRequests, .cancelHeartbeatTimeout, .closed(.transportError("reset")),
            ])
        var handshakeFails = EngineClientStateMachine()
        _ = handshakeFails.start()
        #expect(handshakeFails.pollingGETFailed(reason: "refused") == [.closed(.transportError("refused"))])
    }

    @Test(arguments: [
        ("x", EngineCloseReason.protocolError(.unknownPacketType(UInt8(ascii: "x")))),
        ("4a\u{1E}", .protocolError(.emptyPacket)),
        ("b***", .protocolError(.invalidBase64)),
    ])
    func malformedBodiesClose(body: String, reason: EngineCloseReason) {
        var machine = self.openPollingSession()
        #expect(machine.pollingGETCompleted(body: Self.body(body), now: self.t0) == [.cancelHeartbeatTimeout, .closed(reason)])
    }

    @Test(arguments: ["4hello", "", "0{}", "0not json", #"0{"sid":"a"}"#])
    func handshakeBodiesThatAreNotAnOpenPacketClose(body: String) {
        var machine = EngineClientStateMachine()
        _ = machine.start()
        let actions = machine.pollingGETCompleted(body: Self.body(body), now: self.t0)
        guard case .closed(.protocolError(.invalidHandshake))? = actions.last, actions.count == 1 else {
            Issue.record("unexpected \(actions)")
            return
        }
    }

    @Test func oversizedPollingBodyCloses() {
        var machine = EngineClientStateMachine(configuration: .init(forcePolling: true, maximumPollingBodyLength: 8))
        _ = machine.start()
        #expect(
            machine.pollingGETCompleted(body: Self.body("0" + Self.openText), now: self.t0) == [.closed(.protocolError(.payloadTooLarge(limit: 8)))])
    }

    // MARK: Upgrade

    @Test func upgradeWithWritesAndPacketsDuringTheWindow() {
        var machine = EngineClientStateMachine()
        #expect(machine.start() == [.sendPollingGET(sid: nil)])
        // The handshake offers websocket: the probe WebSocket opens alongside polling.
        #expect(
            machine.pollingGETCompleted(body: Self.body("0" + Self.openText), now: self.t0) == [
                .opened(Self.handshake),
                .scheduleHeartbeatTimeout(self.t0 + .seconds(45)),
                .openWebSocket(sid: Self.sid),
                .sendPollingGET(sid: Self.sid),
            ])
        #expect(machine.isUpgrading)
        // Polling still carries writes while the WebSocket opens.
        #expect(machine.send(.message("a")) == [.sendPollingPOST(sid: Self.sid, body: Self.body("4a"))])
        #expect(machine.webSocketOpened(now: self.t0) == [.sendWebSocketFrames([.text("2probe")])])
        #expect(machine.send(.message("b")) == [])  // behind the POST in flight
        // Probe answered: polling pauses; GET and POST are still in flight.
        #expect(machine.webSocketReceived(.text("3probe"), now: self.t0) == [])
        #expect(machine.send(.message("c")) == [])
        // The POST completes: no new POST while paused.
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [])
        #expect(!machine.isPollingPOSTInFlight)
        // The old GET returns with packets (the server ends it with a noop): they are delivered,
        // then the upgrade completes: `5`, then the buffered writes in order (the pong last).
        let t1 = self.t0 + .seconds(2)
        #expect(
            machine.pollingGETCompleted(body: Self.body("4x\u{1E}2\u{1E}4y\u{1E}6"), now: t1) == [
                .deliverMessage("x"),
                .scheduleHeartbeatTimeout(t1 + .seconds(45)),
                .deliverMessage("y"),
                .sendWebSocketFrames([.text("5"), .text("4b"), .text("4c"), .text("3")]),
                .upgraded,
            ])
        #expect(machine.currentTransport == .webSocket && !machine.isUpgrading)
        #expect(!machine.isPollingGETInFlight && !machine.isPollingPOSTInFlight)
        // Over the WebSocket now.
        #expect(machine.webSocketReceived(.text("6"), now: t1) == [])
        #expect(machine.webSocketReceived(.text("4z"), now: t1) == [.deliverMessage("z")])
        #expect(machine.webSocketReceived(.binary([9]), now: t1) == [.deliverBinaryMessage([9])])
        #expect(machine.send([.message("d"), .binaryMessage([1])]) == [.sendWebSocketFrames([.text("4d"), .binary([1])])])
        let t2 = t1 + .seconds(25)
        #expect(
            machine.webSocketReceived(.text("2"), now: t2) == [
                .scheduleHeartbeatTimeout(t2 + .seconds(45)),
                .sendWebSocketFrames([.text("3")]),
            ])
        // Stale polling reports are ignored.
        #expect(machine.pollingGETCompleted(body: Self.body("4stale"), now: t2) == [])
        #expect(machine.pollingPOSTCompleted(now: t2) == [])
        // Client close over WebSocket.
        #expect(machine.close() == [.sendWebSocketFrames([.text("1")]), .closeWebSocket, .cancelHeartbeatTimeout, .closed(.clientClosed)])
    }

    @Test func upgradeWhenThePostOutlivesTheGet() {
        var machine = self.openPollingSession(forcePolling: false)
        _ = machine.send(.message("a"))
        _ = machine.webSocketOpened(now: self.t0)
        #expect(machine.webSocketReceived(.text("3probe"), now: self.t0) == [])
        #expect(machine.send(.message("b")) == [])
        // GET returns first: no new GET, but the POST is still in flight.
        #expect(machine.pollingGETCompleted(body: Self.body("6"), now: self.t0) == [])
        #expect(!machine.isPollingGETInFlight)
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.sendWebSocketFrames([.text("5"), .text("4b")]), .upgraded])
    }

    @Test func failedProbeKeepsPolling() {
        var machine = self.openPollingSession(forcePolling: false)
        _ = machine.webSocketOpened(now: self.t0)
        #expect(machine.webSocketReceived(.text("3nope"), now: self.t0) == [.closeWebSocket])
        #expect(!machine.isUpgrading && machine.currentTransport == .polling)
        // Reports from the dropped WebSocket are ignored; polling goes on.
        #expect(machine.webSocketReceived(.text("3probe"), now: self.t0) == [])
        #expect(machine.send(.message("a")) == [.sendPollingPOST(sid: Self.sid, body: Self.body("4a"))])
        #expect(machine.pollingGETCompleted(body: Self.body("4m"), now: self.t0) == [.deliverMessage("m"), .sendPollingGET(sid: Self.sid)])
    }

    @Test func pausedWithNothingButTheGetInFlightUpgradesWhenItReturns() {
        var machine = self.openPollingSession(forcePolling: false)
        _ = machine.webSocketOpened(now: self.t0)
        _ = machine.webSocketReceived(.text("3probe"), now: self.t0)
        #expect(machine.send(.message("held")) == [])
        #expect(
            machine.pollingGETCompleted(body: Self.body("6"), now: self.t0) == [
                .sendWebSocketFrames([.text("5"), .text("4held")]), .upgraded,
            ])
    }

    @Test func unexpectedWebSocketPacketWhilePausedAbandonsTheUpgrade() {
        var machine = self.openPollingSession(forcePolling: false)
        _ = machine.webSocketOpened(now: self.t0)
        _ = machine.webSocketReceived(.text("3probe"), now: self.t0)
        #expect(machine.send(.message("held")) == [])
        // Only `3probe` may come before `5`; anything else means the probe is not trustworthy.
        // The GET is still in flight, so only the buffered write needs a POST.
        #expect(
            machine.webSocketReceived(.text("4early"), now: self.t0) == [
                .closeWebSocket, .sendPollingPOST(sid: Self.sid, body: Self.body("4held")),
            ])
        #expect(machine.pollingGETCompleted(body: Self.body("6"), now: self.t0) == [.sendPollingGET(sid: Self.sid)])
    }

    @Test func webSocketFailureBeforeTheProbeAnswerKeepsPolling() {
        var machine = self.openPollingSession(forcePolling: false)
        #expect(machine.webSocketFailed(reason: "refused") == [.closeWebSocket])
        #expect(machine.webSocketOpened(now: self.t0) == [])
        #expect(machine.pollingGETCompleted(body: Self.body("6"), now: self.t0) == [.sendPollingGET(sid: Self.sid)])
    }

    @Test func probeFailureWhilePausedResumesGetAndPost() {
        var machine = self.openPollingSession(forcePolling: false)
        _ = machine.send(.message("a"))  // POST in flight
        _ = machine.webSocketOpened(now: self.t0)
        _ = machine.webSocketReceived(.text("3probe"), now: self.t0)
        #expect(machine.send(.message("b")) == [])
        #expect(machine.pollingGETCompleted(body: Self.body("6"), now: self.t0) == [])  // paused: no new GET
        // The WebSocket dies before the POST drains: back to polling, nothing lost.
        #expect(machine.webSocketFailed(reason: "reset") == [.closeWebSocket, .sendPollingGET(sid: Self.sid)])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.sendPollingPOST(sid: Self.sid, body: Self.body("4b"))])
    }

    @Test func closeDuringUpgradeDropsTheProbe() {
        var machine = self.openPollingSession(forcePolling: false)
        _ = machine.webSocketOpened(now: self.t0)
        #expect(machine.close() == [.closeWebSocket, .sendPollingPOST(sid: Self.sid, body: Self.body("1"))])
        #expect(machine.webSocketReceived(.text("3probe"), now: self.t0) == [])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [.cancelPollingRequests, .cancelHeartbeatTimeout, .closed(.clientClosed)])
    }

    @Test func upgradeWindowNeverLosesOrReordersPackets() {
        // Random interleavings of client writes, server packets on the old GET, and completion
        // order; what the server receives must be exactly the writes in order, and what the
        // client delivers exactly the server's messages in order.
        var generator = SplitMix64(seed: 2024)
        for _ in 0..<300 {
            var machine = self.openPollingSession(forcePolling: false)
            var serverReceived: [String] = []
            var delivered: [String] = []
            var written: [String] = []
            var serverSent: [String] = []
            var postBody: [UInt8]?
            var getInFlight = true
            var upgraded = false
            var counter = 0

            func perform(_ actions: [EngineClientAction]) {
                for action in actions {
                    switch action {
                    case .sendPollingPOST(_, let body):
                        #expect(postBody == nil, "two POSTs in flight")
                        postBody = body
                    case .sendPollingGET:
                        #expect(!getInFlight, "two GETs in flight")
                        getInFlight = true
                    case .sendWebSocketFrames(let frames):
                        for frame in frames {
                            guard case .text(let text) = frame else { continue }
                            if text == "5" {
                                upgraded = true
                                continue
                            }
                            if text == "2probe" { continue }
                            #expect(upgraded, "message on the WebSocket before 5")
                            if text.hasPrefix("4") { serverReceived.append(String(text.dropFirst())) }
                        }
                    case .deliverMessage(let text):
                        delivered.append(text.message)
                    case .upgraded:
                        #expect(postBody == nil && !getInFlight)
                    default:
                        break
                    }
                }
            }

            func write() {
                counter += 1
                let text = "w\(counter)"
                written.append(text)
                perform(machine.send(.message(text)))
            }

            for _ in 0..<Int(generator.next() % 4) { write() }
            perform(machine.webSocketOpened(now: self.t0))
            for _ in 0..<Int(generator.next() % 3) { write() }
            perform(machine.webSocketReceived(.text("3probe"), now: self.t0))
            var steps = 0
            while !upgraded && steps < 50 {
                steps += 1
                switch generator.next() % 3 {
                case 0:
                    write()
                case 1:
                    if let body = postBody {
                        postBody = nil
                        let packets = (try? EnginePollingPayload.decode(body)) ?? []
                        for case .message(let text) in packets { serverReceived.append(text) }
                        perform(machine.pollingPOSTCompleted(now: self.t0))
                    }
                default:
                    if getInFlight {
                        getInFlight = false
                        counter += 1
                        let text = "s\(counter)"
                        serverSent.append(text)
                        perform(machine.pollingGETCompleted(body: Self.body("4" + text + "\u{1E}6"), now: self.t0))
                    }
                }
            }
            #expect(upgraded)
            for _ in 0..<Int(generator.next() % 3) { write() }
            #expect(serverReceived == written)
            #expect(delivered == serverSent)
        }
    }

    // MARK: WebSocket only

    @Test func webSocketOnlySession() {
        var machine = EngineClientStateMachine(configuration: .init(forceWebSockets: true))
        #expect(machine.start() == [.openWebSocket(sid: nil)])
        #expect(machine.send(.message("early")) == [])
        #expect(machine.webSocketOpened(now: self.t0) == [])
        #expect(
            machine.webSocketReceived(.text("0" + Self.openText), now: self.t0) == [
                .opened(Self.handshake),
                .scheduleHeartbeatTimeout(self.t0 + .seconds(45)),
                .sendWebSocketFrames([.text("4early")]),
            ])
        #expect(machine.currentTransport == .webSocket && !machine.isUpgrading)
        #expect(machine.webSocketReceived(.text(#"40{"sid":"x"}"#), now: self.t0) == [.deliverMessage(#"0{"sid":"x"}"#)])
        #expect(machine.webSocketReceived(.text("1"), now: self.t0) == [.closeWebSocket, .cancelHeartbeatTimeout, .closed(.serverClosed)])
    }

    @Test func webSocketOnlyFailures() {
        var notOpen = EngineClientStateMachine(configuration: .init(forceWebSockets: true))
        _ = notOpen.start()
        #expect(
            notOpen.webSocketReceived(.text("4hi"), now: self.t0) == [
                .closeWebSocket, .closed(.protocolError(.invalidHandshake("first packet is not open"))),
            ])

        var garbage = EngineClientStateMachine(configuration: .init(forceWebSockets: true))
        _ = garbage.start()
        _ = garbage.webSocketReceived(.text("0" + Self.openText), now: self.t0)
        #expect(
            garbage.webSocketReceived(.text("?"), now: self.t0) == [
                .closeWebSocket, .cancelHeartbeatTimeout, .closed(.protocolError(.unknownPacketType(UInt8(ascii: "?")))),
            ])

        var dropped = EngineClientStateMachine(configuration: .init(forceWebSockets: true))
        _ = dropped.start()
        _ = dropped.webSocketReceived(.text("0" + Self.openText), now: self.t0)
        #expect(dropped.webSocketFailed(reason: "closed 1006") == [.cancelHeartbeatTimeout, .closed(.transportError("closed 1006"))])
        #expect(dropped.webSocketFailed(reason: "again") == [])
    }
}
