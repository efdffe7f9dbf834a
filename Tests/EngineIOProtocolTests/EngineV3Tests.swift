import RealtimeTime
import Testing

@testable import EngineIOProtocol

/// Engine.IO v3 (engine.io-protocol v3, "Encoding", "Timeouts"): length-prefixed payloads,
/// type-prefixed binary WebSocket frames, client-driven heartbeat.
@Suite struct EngineV3Tests {
    let t0 = MonotonicInstant.now

    /// One v3 text record with its UTF-16 length prefix.
    static func record(_ text: String) -> [UInt8] {
        Array("\(text.utf16.count):\(text)".utf8)
    }

    // MARK: Payload codec

    static let vectors: [([UInt8], [EnginePacket])] = [
        (Array("6:4hello".utf8), [.message("hello")]),
        (Array("6:4hello1:26:2probe".utf8), [.message("hello"), .ping(""), .ping("probe")]),
        // JavaScript servers count UTF-16 units, python-engineio 3.x counts UTF-8 bytes.
        (Array("2:4é".utf8), [.message("é")]),
        (Array("3:4é".utf8), [.message("é")]),
        (Array("3:4😀1:6".utf8), [.message("😀"), .noop]),
        (Array("5:4😀1:6".utf8), [.message("😀"), .noop]),
        (Array("3:4€é2:4x".utf8), [.message("€é"), .message("x")]),
        (Array("6:4€é2:4x".utf8), [.message("€é"), .message("x")]),
        (Array("10:b4AQIDBA==".utf8), [.binaryMessage([1, 2, 3, 4])]),
        (
            Self.record(#"0{"sid":"a","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}"#),
            [.open(#"{"sid":"a","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}"#)]
        ),
        // Binary (XHR2) form.
        ([0, 6, 0xFF] + Array("4hello".utf8) + [1, 5, 0xFF, 4, 1, 2, 3, 4], [.message("hello"), .binaryMessage([1, 2, 3, 4])]),
        ([0, 1, 0, 0xFF] + Array("4abcdefghi".utf8), [.message("abcdefghi")]),
        ([], []),
    ]

    @Test(arguments: Self.vectors)
    func decodesPayloads(body: [UInt8], packets: [EnginePacket]) throws {
        #expect(try EnginePollingPayloadV3.decode(body) == packets)
    }

    @Test func encodesWithUTF16Lengths() throws {
        let packets: [EnginePacket] = [.message("hello"), .ping("probe"), .binaryMessage([1, 2, 3, 4]), .message("😀é"), .close]
        let body = EnginePollingPayloadV3.encode(packets)
        #expect(body == Array("6:4hello6:2probe10:b4AQIDBA==4:4😀é1:1".utf8))
        #expect(try EnginePollingPayloadV3.decode(body) == packets)
    }

    static let malformed: [([UInt8], EngineProtocolError)] = [
        (Array("abc".utf8), .invalidLengthPrefix),
        (Array(":4x".utf8), .invalidLengthPrefix),
        (Array("5".utf8), .invalidLengthPrefix),
        (Array("5:4ab".utf8), .invalidLengthPrefix),
        (Array("0:".utf8), .emptyPacket),
        (Array("99999999999:4".utf8), .invalidLengthPrefix),
        (Array("2:x1".utf8), .unknownPacketType(UInt8(ascii: "x"))),
        (Array("3:b3A".utf8), .unknownPacketType(UInt8(ascii: "3"))),
        (Array("4:b4A!".utf8), .invalidBase64),
        (Array("2:4é9".utf8), .invalidLengthPrefix),
        ([0, 9, 0xFF, 0x34], .invalidLengthPrefix),
        ([0, 1, 2, 3], .invalidLengthPrefix),
        ([0, 0xFF, 0x34], .invalidLengthPrefix),
        ([0, 0, 0xFF], .emptyPacket),
        ([0, 12, 0xFF, 0x34], .invalidLengthPrefix),
        ([1, 2, 0xFF, 3, 1], .unknownPacketType(3)),
        ([0, 2, 0xFF, 0x34, 0xFF], .invalidUTF8),
    ]

    @Test(arguments: Self.malformed)
    func rejectsMalformedPayloads(body: [UInt8], error: EngineProtocolError) {
        #expect(throws: error) { try EnginePollingPayloadV3.decode(body) }
    }

    @Test func boundsTheBody() {
        #expect(throws: EngineProtocolError.payloadTooLarge(limit: 4)) {
            try EnginePollingPayloadV3.decode(Array("6:4hello".utf8), maximumLength: 4)
        }
    }

    @Test func everyTruncationIsRejectedOrAPrefix() {
        let body = Array("6:4hello3:4é10:b4AQIDBA==".utf8)
        for length in 0..<body.count {
            // A truncated body never traps; it either fails or decodes fewer packets.
            if let packets = try? EnginePollingPayloadV3.decode(Array(body[..<length])) {
                #expect(packets.count < 3)
            }
        }
    }

    // MARK: WebSocket frames

    @Test func binaryFramesCarryTheTypeByte() throws {
        #expect(EnginePacket.binaryMessage([1, 2]).webSocketFrame(version: .v3) == .binary([4, 1, 2]))
        #expect(EnginePacket.binaryMessage([1, 2]).webSocketFrame(version: .v4) == .binary([1, 2]))
        #expect(EnginePacket.message("x").webSocketFrame(version: .v3) == .text("4x"))
        #expect(try EnginePacket(webSocketFrame: .binary([4, 9]), version: .v3) == .binaryMessage([9]))
        #expect(try EnginePacket(webSocketFrame: .binary([4, 9]), version: .v4) == .binaryMessage([4, 9]))
        #expect(throws: EngineProtocolError.emptyPacket) { try EnginePacket(webSocketFrame: .binary([]), version: .v3) }
        #expect(throws: EngineProtocolError.unknownPacketType(3)) { try EnginePacket(webSocketFrame: .binary([3, 1]), version: .v3) }
    }

    @Test func queryItems() {
        let v3 = EngineProtocolVersion.v3.queryItems(transport: .polling, sid: "s")
        #expect(v3.map(\.name) == ["EIO", "transport", "sid", "b64"])
        #expect(v3.map(\.value) == ["3", "polling", "s", "1"])
        let v4 = EngineProtocolVersion.v4.queryItems(transport: .webSocket, sid: nil)
        #expect(v4.map(\.name) == ["EIO", "transport"])
        #expect(v4.map(\.value) == ["4", "websocket"])
    }

    // MARK: Client-driven heartbeat

    static let openBody = Self.record(#"0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}"#)

    @Test func clientPingsAndTimesOutWithoutPong() {
        var machine = EngineClientStateMachine(configuration: .init(protocolVersion: .v3))
        #expect(machine.start() == [.sendPollingGET(sid: nil)])
        let handshake = EngineHandshake(sid: "s", upgrades: [], pingInterval: .seconds(25), pingTimeout: .seconds(5), maxPayload: nil)
        // The first timer is the first ping, pingInterval after the handshake.
        #expect(
            machine.pollingGETCompleted(body: Self.openBody, now: self.t0) == [
                .opened(handshake), .scheduleHeartbeatTimeout(self.t0 + .seconds(25)), .sendPollingGET(sid: "s"),
            ])
        #expect(machine.heartbeatTimerFired(now: self.t0 + .seconds(24)) == [.scheduleHeartbeatTimeout(self.t0 + .seconds(25))])
        // Ping goes out; the pong is due within pingTimeout.
        #expect(
            machine.heartbeatTimerFired(now: self.t0 + .seconds(25)) == [
                .sendPollingPOST(sid: "s", body: Array("1:2".utf8)),
                .scheduleHeartbeatTimeout(self.t0 + .seconds(30)),
            ])
        #expect(machine.pollingPOSTCompleted(now: self.t0 + .seconds(25)) == [])
        // The pong arrives: the next ping is pingInterval later.
        let t1 = self.t0 + .seconds(26)
        #expect(
            machine.pollingGETCompleted(body: Array("1:3".utf8), now: t1) == [
                .pongReceived, .scheduleHeartbeatTimeout(t1 + .seconds(25)), .sendPollingGET(sid: "s"),
            ])
        #expect(machine.heartbeatTimerFired(now: self.t0 + .seconds(30)) == [.scheduleHeartbeatTimeout(t1 + .seconds(25))])
        #expect(
            machine.heartbeatTimerFired(now: t1 + .seconds(25)) == [
                .sendPollingPOST(sid: "s", body: Array("1:2".utf8)),
                .scheduleHeartbeatTimeout(t1 + .seconds(30)),
            ])
        // No pong this time.
        #expect(
            machine.heartbeatTimerFired(now: t1 + .seconds(30)) == [
                .cancelPollingRequests, .cancelHeartbeatTimeout, .closed(.pingTimeout),
            ])
    }

    /// With pingTimeout longer than pingInterval (python-engineio 3 defaults: 60 s and 25 s) the
    /// next ping is due before the pong deadline the timer was armed for: the pong re-arms it.
    @Test func pongRearmsTheTimerForTheNextPingWhenPingTimeoutIsLonger() {
        var machine = EngineClientStateMachine(configuration: .init(protocolVersion: .v3))
        _ = machine.start()
        let open = Self.record(#"0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":60000}"#)
        _ = machine.pollingGETCompleted(body: open, now: self.t0)
        #expect(
            machine.heartbeatTimerFired(now: self.t0 + .seconds(25)) == [
                .sendPollingPOST(sid: "s", body: Array("1:2".utf8)),
                .scheduleHeartbeatTimeout(self.t0 + .seconds(85)),
            ])
        _ = machine.pollingPOSTCompleted(now: self.t0 + .seconds(25))
        let t1 = self.t0 + .seconds(26)
        #expect(
            machine.pollingGETCompleted(body: Array("1:3".utf8), now: t1) == [
                .pongReceived, .scheduleHeartbeatTimeout(t1 + .seconds(25)), .sendPollingGET(sid: "s"),
            ])
        #expect(
            machine.heartbeatTimerFired(now: t1 + .seconds(25)) == [
                .sendPollingPOST(sid: "s", body: Array("1:2".utf8)),
                .scheduleHeartbeatTimeout(t1 + .seconds(85)),
            ])
    }

    @Test func anyPacketKeepsTheSessionAlive() {
        var machine = EngineClientStateMachine(configuration: .init(protocolVersion: .v3))
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Self.openBody, now: self.t0)
        _ = machine.heartbeatTimerFired(now: self.t0 + .seconds(25))  // ping sent
        _ = machine.pollingPOSTCompleted(now: self.t0 + .seconds(25))
        // A message (not a pong) arrives before the pong deadline: liveness moves to +30 s from it.
        let t1 = self.t0 + .seconds(28)
        #expect(machine.pollingGETCompleted(body: Array("2:4x".utf8), now: t1) == [.deliverMessage("x"), .sendPollingGET(sid: "s")])
        #expect(machine.heartbeatTimerFired(now: self.t0 + .seconds(30)) == [.scheduleHeartbeatTimeout(t1 + .seconds(30))])
        #expect(machine.heartbeatTimerFired(now: t1 + .seconds(30)).last == .closed(.pingTimeout))
    }

    /// The same over WebSocket, where a message frame is handed on as it arrived
    /// (`EngineMessageText`): it still proves liveness.
    @Test func aWebSocketMessageKeepsTheSessionAlive() {
        var machine = EngineClientStateMachine(configuration: .init(forceWebSockets: true, protocolVersion: .v3))
        _ = machine.start()
        _ = machine.webSocketOpened(now: self.t0)
        _ = machine.webSocketReceived(.text(#"0{"sid":"s","upgrades":[],"pingInterval":25000,"pingTimeout":5000}"#), now: self.t0)
        _ = machine.heartbeatTimerFired(now: self.t0 + .seconds(25))  // ping sent
        let t1 = self.t0 + .seconds(28)
        #expect(machine.webSocketReceived(.text("4x"), now: t1) == [.deliverMessage("x")])
        #expect(machine.heartbeatTimerFired(now: self.t0 + .seconds(30)) == [.scheduleHeartbeatTimeout(t1 + .seconds(30))])
        #expect(machine.heartbeatTimerFired(now: t1 + .seconds(30)).last == .closed(.pingTimeout))
    }

    @Test func upgradeAndBinaryOverWebSocket() {
        var machine = EngineClientStateMachine(configuration: .init(protocolVersion: .v3))
        _ = machine.start()
        let open = Self.record(#"0{"sid":"s","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}"#)
        let actions = machine.pollingGETCompleted(body: open, now: self.t0)
        #expect(actions.contains(.openWebSocket(sid: "s")))
        #expect(machine.send(.binaryMessage([7])) == [.sendPollingPOST(sid: "s", body: Array("6:b4Bw==".utf8))])
        #expect(machine.webSocketOpened(now: self.t0) == [.sendWebSocketFrames([.text("2probe")])])
        #expect(machine.webSocketReceived(.text("3probe"), now: self.t0) == [])
        #expect(machine.send(.binaryMessage([8])) == [])
        #expect(machine.pollingPOSTCompleted(now: self.t0) == [])
        #expect(
            machine.pollingGETCompleted(body: Array("1:6".utf8), now: self.t0) == [
                .sendWebSocketFrames([.text("5"), .binary([4, 8])]), .upgraded,
            ])
        #expect(machine.webSocketReceived(.binary([4, 1, 2]), now: self.t0) == [.deliverBinaryMessage([1, 2])])
        // The client pings over the WebSocket now.
        #expect(
            machine.heartbeatTimerFired(now: self.t0 + .seconds(25)) == [
                .sendWebSocketFrames([.text("2")]), .scheduleHeartbeatTimeout(self.t0 + .seconds(30)),
            ])
        // The pong re-arms the timer for the next ping.
        #expect(
            machine.webSocketReceived(.text("3"), now: self.t0 + .seconds(26)) == [
                .pongReceived, .scheduleHeartbeatTimeout(self.t0 + .seconds(51)),
            ])
    }
}
