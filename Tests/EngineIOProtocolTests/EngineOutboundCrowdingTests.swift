import RealtimeTime
import Testing

@testable import EngineIOProtocol

/// When the outbound buffers count as crowded (more than half of a bound taken), without I/O:
/// the signal a writer that can wait (the async `emit`) waits on.
@Suite struct EngineOutboundCrowdingTests {
    let t0 = MonotonicInstant.now

    func openPolling(maximumBufferedBytes: Int, maximumBufferedPackets: Int) -> EngineClientStateMachine {
        var machine = EngineClientStateMachine(
            configuration: .init(
                forcePolling: true, maximumPacketsPerPOST: 4, maximumBufferedBytes: maximumBufferedBytes,
                maximumBufferedPackets: maximumBufferedPackets))
        _ = machine.start()
        let open = #"0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#
        _ = machine.pollingGETCompleted(body: Array(open.utf8), now: self.t0)
        return machine
    }

    @Test func theWriteBufferIsCrowdedPastHalfItsPacketBoundAndClearsAsPOSTsDrainIt() throws {
        var machine = self.openPolling(maximumBufferedBytes: 1 << 20, maximumBufferedPackets: 10)
        // The first write goes out in a POST; the rest wait behind it.
        _ = try machine.write([.message("first")], writeID: nil)
        for index in 0..<5 {
            _ = try machine.write([.message("\(index)")], writeID: nil)
        }
        #expect(!machine.isCrowded)  // 5 of 10
        _ = try machine.write([.message("5")], writeID: nil)
        #expect(machine.isCrowded)  // 6 of 10
        // The POST in flight ends; the next takes 4 (the cap): 2 wait.
        _ = machine.pollingPOSTCompleted(now: self.t0)
        #expect(!machine.isCrowded)
    }

    @Test func theWriteBufferIsCrowdedPastHalfItsByteBound() throws {
        var machine = self.openPolling(maximumBufferedBytes: 100, maximumBufferedPackets: 1_000)
        _ = try machine.write([.message("first")], writeID: nil)
        // A record of "4" + 49 bytes is 50 bytes as polling encodes it: exactly half.
        _ = try machine.write([.message(String(repeating: "x", count: 49))], writeID: nil)
        #expect(!machine.isCrowded)
        _ = try machine.write([.message("y")], writeID: nil)
        #expect(machine.isCrowded)
    }

    @Test func theWebSocketSendQueueIsCrowdedPastHalfItsBound() throws {
        var queue = EngineWebSocketSendQueue(maximumQueuedBytes: 1 << 20, maximumQueuedFrames: 4)
        // The first entry goes to the writer; what follows waits behind it.
        _ = queue.enqueue(.frames([.text("4a")], writeID: nil))
        _ = queue.enqueue(.frames([.text("4b"), .text("4c")], writeID: nil))
        #expect(!queue.isCrowded)  // 2 of 4 frames
        _ = queue.enqueue(.frames([.text("4d")], writeID: nil))
        #expect(queue.isCrowded)  // 3 of 4
    }
}
