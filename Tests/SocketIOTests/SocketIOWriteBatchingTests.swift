import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// Emits made by a handler on the `handleQueue` in a burst wait for the handler to return and
/// go out together (see `SocketEngine.enqueueWebSocket`); they keep their order, and a handler
/// that blocks afterwards does not hold them back for long.
@Suite(.serialized) struct SocketIOWriteBatchingTests {
    @Test(arguments: TransportMode.available)
    func aBurstFromTheHandleQueueArrivesInOrder(_ mode: TransportMode) async throws {
        let harness = try await LoopbackHarness(mode)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)

        let written = Recorder<Int>()
        harness.queue.async {
            for n in 0..<2_000 {
                socket.emit("seq", n, completion: { written.append(n) })
            }
        }
        #expect(await written.wait(forCount: 2_000))
        #expect(written.values == Array(0..<2_000))
        let sequence = try #require(await harness.ack(socket, "seq_result", [], timeout: 10))
        #expect((sequence.first as? [Any])?.compactMap { $0 as? Int } == Array(0..<2_000))
    }

    @Test(arguments: TransportMode.available)
    func aHandlerThatBlocksAfterABurstDoesNotHoldItBack(_ mode: TransportMode) async throws {
        let harness = try await LoopbackHarness(mode)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)

        // A second client, on its own queue, hears what the first one shouts.
        let listenerQueue = DispatchQueue(label: "listener")
        let listener = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(harness.server.port)")!,
            config: [
                .handleQueue(listenerQueue), .reconnects(false),
                // URLSession cannot open a WebSocket on Linux.
                BuildConfiguration.noNativeStack ? .forcePolling(true) : .forceWebsockets(true),
            ])
        defer { listener.disconnect() }
        let heard = Recorder<Int>()
        let allHeard = DispatchSemaphore(value: 0)
        listener.defaultSocket.on("shouted") { data, _ in
            heard.append(data.first as? Int ?? -1)
            if heard.count == 3 { allHeard.signal() }
        }
        #expect(await harness.connect(listener.defaultSocket).connected != nil)

        // The handler emits three times in a row, then blocks its queue until they were heard.
        let heardWhileBlocked = Recorder<Bool>()
        harness.queue.async {
            for n in 0..<3 {
                socket.emit("shout", n)
            }
            heardWhileBlocked.append(allHeard.wait(timeout: .now() + 5) == .success)
        }
        #expect(await heardWhileBlocked.wait(forCount: 1, timeout: 10))
        #expect(heardWhileBlocked.values == [true])
        #expect(heard.values == [0, 1, 2])
    }
}
