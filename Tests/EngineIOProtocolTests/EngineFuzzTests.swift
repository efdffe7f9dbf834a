import RealtimeEncoding
import RealtimeTime
import TestSupport
import Testing

@testable import EngineIOProtocol

/// Random and mutated input for everything that parses server bytes, and random walks through
/// the client state machine checking its invariants. Deterministic seeds: a failure reproduces.
@Suite struct EngineFuzzTests {
    static func randomBytes(_ generator: inout SplitMix64, alphabet: [UInt8]? = nil) -> [UInt8] {
        let count = Int(generator.next() % 40)
        return (0..<count).map { _ in
            if let alphabet { return alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            return UInt8(truncatingIfNeeded: generator.next())
        }
    }

    static let engineAlphabet: [UInt8] = Array("0123456789b:{}[]\",=AQ/+é".utf8) + [0x1E, 0x00, 0x01, 0xFF, 0xC3]

    @Test func decodersNeverTrapOnRandomBytes() {
        var generator = SplitMix64(seed: 99)
        for round in 0..<10_000 {
            let bytes = Self.randomBytes(&generator, alphabet: round % 2 == 0 ? Self.engineAlphabet : nil)
            _ = try? EnginePollingPayload.decode(bytes)
            _ = try? EnginePollingPayloadV3.decode(bytes)
            _ = try? JSONParser().parse(bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? EnginePacket(webSocketText: text)
            _ = try? EnginePacket(webSocketFrame: .binary(bytes), version: .v3)
            _ = try? EngineHandshake(jsonText: text)
            _ = Base64.decode(text)
        }
    }

    @Test func incrementalAndWholeDecodingAgreeOnRandomBodies() {
        var generator = SplitMix64(seed: 5)
        for _ in 0..<3_000 {
            let bytes = Self.randomBytes(&generator, alphabet: Self.engineAlphabet)
            let whole = Result { () throws(EngineProtocolError) in try EnginePollingPayload.decode(bytes) }
            let offset = bytes.isEmpty ? 0 : Int(generator.next() % UInt64(bytes.count + 1))
            let split = Result { () throws(EngineProtocolError) in
                var decoder = PollingPayloadDecoder()
                var packets = try decoder.feed(bytes[..<offset])
                packets += try decoder.feed(bytes[offset...])
                packets += try decoder.finish()
                return packets
            }
            switch (whole, split) {
            case (.success(let a), .success(let b)):
                #expect(a == b)
            case (.failure, .failure):
                break
            default:
                Issue.record("whole \(whole) vs split \(split) for \(bytes)")
            }
        }
    }

    @Test func stateMachineRandomWalksKeepTheirInvariants() {
        var generator = SplitMix64(seed: 31)
        let bodies: [String] = [
            "6", "2", "4m", "4a\u{1E}2\u{1E}4b", "1", "bAQID", "x", "", "0{}",
            "0" + #"{"sid":"s","upgrades":["websocket"],"pingInterval":1000,"pingTimeout":500,"maxPayload":20}"#,
        ]
        let frames: [EngineWebSocketFrame] = [
            .text("3probe"), .text("3nope"), .text("2"), .text("4w"), .text("6"), .text("1"), .text(""), .binary([1]),
            .text("0" + #"{"sid":"s","upgrades":[],"pingInterval":1000,"pingTimeout":500}"#),
        ]
        for walk in 0..<400 {
            let configuration = EngineClientStateMachine.Configuration(
                forcePolling: walk % 5 == 1, forceWebSockets: walk % 5 == 2,
                protocolVersion: walk % 3 == 0 ? .v3 : .v4)
            var machine = EngineClientStateMachine(configuration: configuration)
            var now = MonotonicInstant.now
            var getInFlight = false
            var postInFlight = false
            var closedCount = 0

            func perform(_ actions: [EngineClientAction]) {
                if closedCount > 0 {
                    #expect(actions.isEmpty, "actions after close: \(actions)")
                }
                for action in actions {
                    switch action {
                    case .sendPollingGET:
                        #expect(!getInFlight, "two GETs in flight")
                        getInFlight = true
                    case .sendPollingPOST:
                        #expect(!postInFlight, "two POSTs in flight")
                        postInFlight = true
                    case .cancelPollingRequests:
                        getInFlight = false
                        postInFlight = false
                    case .closed:
                        closedCount += 1
                    default:
                        break
                    }
                }
                #expect(machine.isPollingGETInFlight == getInFlight || closedCount > 0)
                #expect(machine.isPollingPOSTInFlight == postInFlight || closedCount > 0)
            }

            perform(machine.start())
            for _ in 0..<60 {
                now += .milliseconds(Int(generator.next() % 700))
                switch generator.next() % 12 {
                case 0, 1:
                    perform(machine.send(.message("c")))
                case 2, 3:
                    let body = bodies[Int(generator.next() % UInt64(bodies.count))]
                    let wasInFlight = getInFlight
                    getInFlight = false
                    let actions = machine.pollingGETCompleted(body: Array(body.utf8), now: now)
                    if !wasInFlight { #expect(actions.isEmpty) }
                    perform(actions)
                case 4:
                    postInFlight = false
                    perform(machine.pollingPOSTCompleted(now: now))
                case 5:
                    let frame = frames[Int(generator.next() % UInt64(frames.count))]
                    perform(machine.webSocketReceived(frame, now: now))
                case 6:
                    perform(machine.webSocketOpened(now: now))
                case 7:
                    perform(machine.heartbeatTimerFired(now: now))
                case 8:
                    if generator.next() % 4 == 0 { perform(machine.webSocketFailed(reason: "x")) }
                case 9:
                    if generator.next() % 6 == 0 {
                        getInFlight = false
                        perform(machine.pollingGETFailed(reason: "x"))
                    }
                case 10:
                    if generator.next() % 6 == 0 {
                        postInFlight = false
                        perform(machine.pollingPOSTFailed(reason: "x"))
                    }
                default:
                    if generator.next() % 8 == 0 { perform(machine.close()) }
                }
            }
            #expect(closedCount <= 1)
            if closedCount == 1 {
                #expect(machine.closeReason != nil)
            }
        }
    }
}
