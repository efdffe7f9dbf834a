import RealtimeTime
import Testing

@testable import EngineIOProtocol

/// A burst of writes over polling: how many `POST`s it makes, what each carries, and that
/// the write buffer hands them out in order however the burst is fed.
@Suite struct EngineClientBurstTests {
    let t0 = MonotonicInstant.now
    static let sid = "s1"

    static func openText(maxPayload: Int) -> String {
        #"{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":\#(maxPayload)}"#
    }

    func open(maxPayload: Int = 1_000_000, cap: Int? = EngineClientStateMachine.Configuration.pythonEngineIOPacketsPerPOST)
        -> EngineClientStateMachine
    {
        var machine = EngineClientStateMachine(configuration: .init(forcePolling: true, maximumPacketsPerPOST: cap))
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Array(("0" + Self.openText(maxPayload: maxPayload)).utf8), now: self.t0)
        return machine
    }

    /// Completes POSTs until none is left; returns every POST's packets and the write ids carried.
    func drain(_ machine: inout EngineClientStateMachine, first: [EngineClientAction]) throws -> (posts: [[EnginePacket]], carried: [Int]) {
        var posts: [[EnginePacket]] = []
        var carried: [Int] = []
        var actions = first
        while true {
            var sawPOST = false
            for action in actions {
                switch action {
                case .sendPollingPOST(let sid, let body):
                    #expect(sid == Self.sid)
                    posts.append(try EnginePollingPayload.decode(body))
                    sawPOST = true
                case .carriesWrites(let through):
                    carried.append(through)
                default:
                    Issue.record("unexpected action \(action)")
                }
            }
            guard sawPOST else { return (posts, carried) }
            actions = machine.pollingPOSTCompleted(now: self.t0)
        }
    }

    enum Feeding: String, CaseIterable, CustomTestStringConvertible {
        /// One write per packet.
        case onePerWrite
        /// The whole burst as one write.
        case whole
        /// Writes of 7 packets (an event with attachments, say).
        case split

        var testDescription: String { self.rawValue }
    }

    func feed(_ packets: [EnginePacket], _ feeding: Feeding, into machine: inout EngineClientStateMachine) -> [EngineClientAction] {
        var actions: [EngineClientAction] = []
        switch feeding {
        case .onePerWrite:
            for (index, packet) in packets.enumerated() {
                actions += machine.send([packet], writeID: index)
            }
        case .whole:
            actions += machine.send(packets, writeID: packets.count - 1)
        case .split:
            var start = 0
            while start < packets.count {
                let end = min(start + 7, packets.count)
                actions += machine.send(Array(packets[start..<end]), writeID: end - 1)
                start = end
            }
        }
        return actions
    }

    @Test(arguments: Feeding.allCases)
    func aBurstBehindAPOSTInFlightMakesOnePOSTPerSixteenPackets(feeding: Feeding) throws {
        var machine = self.open()
        // The first write goes at once; the burst waits behind it.
        let first = machine.send([.message("first")], writeID: nil)
        #expect(first == [.sendPollingPOST(sid: Self.sid, body: Array("4first".utf8))])
        let burst = (0..<1000).map { EnginePacket.message(#"2["sink","payload",\#($0)]"#) }
        #expect(self.feed(burst, feeding, into: &machine) == [])
        #expect(machine.writeBuffer.count == 1000)

        let (posts, carried) = try self.drain(&machine, first: machine.pollingPOSTCompleted(now: self.t0))
        // ceil(1000 / 16) POSTs after the first, each full (python-engineio's most) but the last.
        #expect(posts.count == 63)
        #expect(posts.dropLast().allSatisfy { $0.count == 16 })
        #expect(posts.last?.count == 1000 - 62 * 16)
        #expect(Array(posts.joined()) == burst)
        // Write ids are carried in order, ending with the last write.
        #expect(carried == carried.sorted())
        #expect(carried.last == 999)
        #expect(machine.writeBuffer.isEmpty)
        #expect(machine.writeBuffer.encodedLength == 0)
    }

    @Test(arguments: Feeding.allCases)
    func maxPayloadSplitsBeforeThePacketCap(feeding: Feeding) throws {
        // Records of 10 bytes ("4" + 9) and a separator each: 5 fit 54 bytes, 6 do not.
        var machine = self.open(maxPayload: 54)
        _ = machine.send([.message("x")], writeID: nil)
        let burst = (0..<100).map { EnginePacket.message("message" + String(format2: $0)) }
        _ = self.feed(burst, feeding, into: &machine)
        let (posts, _) = try self.drain(&machine, first: machine.pollingPOSTCompleted(now: self.t0))
        #expect(posts.count == 20)
        #expect(posts.allSatisfy { $0.count == 5 })
        #expect(Array(posts.joined()) == burst)
    }

    @Test func withoutACapOnePOSTCarriesTheWholeBurst() throws {
        var machine = self.open(cap: nil)
        _ = machine.send([.message("x")], writeID: nil)
        let burst = (0..<500).map { EnginePacket.message("\($0)") }
        _ = self.feed(burst, .onePerWrite, into: &machine)
        let (posts, carried) = try self.drain(&machine, first: machine.pollingPOSTCompleted(now: self.t0))
        #expect(posts.count == 1)
        #expect(carried == [499])
    }

    @Test func aBurstLongerThanTheReclaimThresholdKeepsOrderAndIDs() throws {
        // More than the buffer's 4096-packet reclaim threshold, taken in POST-sized pieces
        // while more writes arrive.
        var machine = self.open()
        _ = machine.send([.message("x")], writeID: nil)
        var sent: [EnginePacket] = []
        var posts: [[EnginePacket]] = []
        var carried: [Int] = []
        var next = 0
        var actions: [EngineClientAction] = []
        for round in 0..<700 {
            for _ in 0..<20 {
                let packet = EnginePacket.message("\(next)")
                sent.append(packet)
                _ = machine.send([packet], writeID: next)
                next += 1
            }
            if round % 2 == 0 {
                actions = machine.pollingPOSTCompleted(now: self.t0)
                for action in actions {
                    if case .sendPollingPOST(_, let body) = action { posts.append(try EnginePollingPayload.decode(body)) }
                    if case .carriesWrites(let through) = action { carried.append(through) }
                }
            }
        }
        let rest = try self.drain(&machine, first: machine.pollingPOSTCompleted(now: self.t0))
        posts += rest.posts
        carried += rest.carried
        #expect(Array(posts.joined()) == sent)
        #expect(posts.allSatisfy { $0.count <= 16 })
        #expect(carried == carried.sorted())
        #expect(carried.last == next - 1)
    }
}

extension String {
    /// Two digits, zero-padded.
    fileprivate init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}
