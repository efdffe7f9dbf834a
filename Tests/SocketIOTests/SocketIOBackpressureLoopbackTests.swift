import Dispatch
import Foundation
import SocketIOProtocol
import TestSupport
import Testing

@testable import SocketIO

/// A `handleQueue` that falls behind stops the engine's reads at the ``InboundBacklog`` bound
/// instead of buffering everything the server sends; once the queue drains, reading resumes
/// and every event arrives, in order, on the same session (python-socketio, every transport).
@Suite(.serialized) struct SocketIOBackpressureLoopbackTests {
    @Test(arguments: TransportMode.available)
    func aBlockedHandleQueueStopsReadingAndLosesNothing(_ mode: TransportMode) async throws {
        let harness = try await LoopbackHarness(mode)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)
        if mode == .upgrade {
            // Flood over the WebSocket, not in the upgrade window.
            for _ in 0..<500 where harness.manager.engine?.polling != false {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(harness.manager.engine?.polling == false)
        }
        let total = 5_000
        let received = Recorder<Int>()
        socket.on("flood_item") { data, _ in received.append(data.first as? Int ?? -1) }

        // The app's queue is stuck while the server floods.
        let release = DispatchSemaphore(value: 0)
        harness.queue.async { release.wait() }
        socket.emit("flood", total)
        var paused = false
        for _ in 0..<1_000 where !paused {
            paused = harness.manager.handleQueueBacklog.readingPaused
            if !paused { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        #expect(paused, "reading never paused")
        try await Task.sleep(nanoseconds: 300_000_000)
        let stuck = harness.manager.handleQueueBacklog
        #expect(stuck.readingPaused)
        #expect(received.count == 0)
        if mode != .polling {
            // One WebSocket message is one packet: reading stops exactly at the bound. (A
            // polling GET carries whatever the server queued, so there the bound is the
            // pause plus one response.)
            #expect(stuck.peak == InboundBacklog.defaultPauseAt, "peak \(stuck.peak)")
            #expect(stuck.pending == InboundBacklog.defaultPauseAt)
        }

        release.signal()
        #expect(await received.wait(forCount: total, timeout: 30))
        #expect(received.values == Array(0..<total))
        let drained = harness.manager.handleQueueBacklog
        #expect(!drained.readingPaused)
        #expect(socket.status == .connected)
        // The session is the same and still answers.
        let answer = try #require(await harness.ack(socket, "seq_result", [], timeout: 10))
        #expect(answer.first as? String != "NO ACK")
    }
}
