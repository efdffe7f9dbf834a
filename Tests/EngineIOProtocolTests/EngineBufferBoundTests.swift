import RealtimeTime
import Testing

@testable import EngineIOProtocol

/// The engine's outbound buffers are bounded: the write that does not fit is refused with a
/// typed error, nothing of it is buffered, and writes fit again once the buffer drained.
@Suite struct EngineBufferBoundTests {
    let t0 = MonotonicInstant.now
    static let openBody = Array(#"0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#.utf8)

    func openPolling(bytes: Int = 1 << 20, packets: Int = 1 << 10) -> EngineClientStateMachine {
        var machine = EngineClientStateMachine(
            configuration: .init(forcePolling: true, maximumBufferedBytes: bytes, maximumBufferedPackets: packets))
        _ = machine.start()
        _ = machine.pollingGETCompleted(body: Self.openBody, now: self.t0)
        return machine
    }

    @Test func theDefaultsAreSixteenMebibytesAndAQuarterMillionPackets() {
        let configuration = EngineClientStateMachine.Configuration()
        #expect(configuration.maximumBufferedBytes == 16 << 20)
        #expect(configuration.maximumBufferedPackets == 262_144)
        let queue = EngineWebSocketSendQueue()
        #expect(queue.maximumQueuedBytes == 16 << 20)
        #expect(queue.maximumQueuedFrames == 262_144)
    }

    @Test func aWriteBehindThePOSTInFlightThatPassesTheByteBoundIsRefusedWhole() throws {
        // Records of "4" + 9 bytes: 10 bytes each; room for 5.
        var machine = self.openPolling(bytes: 50)
        let first = try machine.write([.message("in flight")], writeID: 0)
        #expect(first == [.sendPollingPOST(sid: "s1", body: Array("4in flight".utf8)), .carriesWrites(through: 0)])
        for index in 1...5 {
            #expect(try machine.write([.message("message-\(index)")], writeID: index) == [])
        }
        #expect(machine.bufferedWrites.bytes == 50 && machine.bufferedWrites.packets == 5)
        let overflow = EngineBufferOverflow(
            buffer: .engineWriteBuffer, bufferedBytes: 50, bufferedPackets: 5, writeBytes: 20, writePackets: 2,
            maximumBytes: 50, maximumPackets: 1 << 10)
        #expect(throws: overflow) { try machine.write([.message("message-6"), .message("message-7")], writeID: 6) }
        // Unchanged: the next POST carries the five writes, and then there is room again.
        #expect(machine.bufferedWrites.bytes == 50 && machine.bufferedWrites.packets == 5)
        #expect(machine.pollingPOSTCompleted(now: self.t0).last == .carriesWrites(through: 5))
        #expect(try machine.write([.message("message-6")], writeID: 6) == [])
        // The non-throwing send drops what does not fit, and says nothing.
        var full = self.openPolling(bytes: 10)
        _ = full.send([.message("in flight")], writeID: nil)
        #expect(full.send([.message("message-1")], writeID: 1) == [])
        #expect(full.send([.message("message-2")], writeID: 2) == [])
        #expect(full.bufferedWrites.bytes == 10 && full.bufferedWrites.packets == 1)
    }

    @Test func thePacketBoundCountsPackets() throws {
        var machine = self.openPolling(packets: 3)
        _ = try machine.write([.message("x")], writeID: nil)
        _ = try machine.write([.message("a"), .binaryMessage([1]), .binaryMessage([2])], writeID: 1)
        #expect(throws: EngineBufferOverflow.self) { try machine.write([.message("b")], writeID: 2) }
    }

    @Test func writesBeforeTheHandshakeAreBoundedToo() throws {
        var machine = EngineClientStateMachine(configuration: .init(maximumBufferedBytes: 4))
        _ = machine.start()
        #expect(try machine.write([.message("abc")], writeID: 0) == [])
        #expect(throws: EngineBufferOverflow.self) { try machine.write([.message("d")], writeID: 1) }
    }

    @Test func controlPacketsAlwaysFit() throws {
        // The buffer is full behind a POST; the server's ping is still answered.
        var machine = self.openPolling(bytes: 2)
        _ = try machine.write([.message("x")], writeID: nil)
        _ = try machine.write([.message("y")], writeID: nil)
        _ = machine.pollingGETCompleted(body: Array("2".utf8), now: self.t0)
        #expect(machine.bufferedWrites.packets == 2)
        let actions = machine.pollingPOSTCompleted(now: self.t0)
        #expect(actions.first == .sendPollingPOST(sid: "s1", body: Array("4y\u{1E}3".utf8)))
    }

    @Test func overAWebSocketTheMachineBuffersNothing() throws {
        var machine = EngineClientStateMachine(configuration: .init(forceWebSockets: true, maximumBufferedBytes: 1))
        _ = machine.start()
        _ = machine.webSocketOpened(now: self.t0)
        _ = machine.webSocketReceived(.text(String(decoding: Self.openBody, as: UTF8.self)), now: self.t0)
        #expect(try machine.write([.message("longer than one byte")], writeID: 0).count == 2)
    }

    // MARK: WebSocket send queue

    @Test func theSendQueueRefusesWhatDoesNotFitBehindTheWriter() throws {
        var queue = EngineWebSocketSendQueue(maximumQueuedBytes: 10, maximumQueuedFrames: 3)
        // No writer: anything fits (it goes out at once).
        try queue.checkRoom(forBytes: 1000, frames: 1000)
        #expect(queue.enqueue(.frames([.text("4first")], writeID: 0)) != nil)
        // Behind the writer: 10 bytes, 3 frames.
        try queue.checkRoom(forBytes: 10, frames: 3)
        #expect(queue.enqueue(.frames([.text("4abcd"), .binary([1, 2, 3, 4])], writeID: 1)) == nil)
        #expect(queue.queuedBytes == 9)
        #expect(queue.queuedFrames == 2)
        try queue.checkRoom(forBytes: 1, frames: 1)
        #expect(
            throws: EngineBufferOverflow(
                buffer: .webSocketSendQueue, bufferedBytes: 9, bufferedPackets: 2, writeBytes: 2, writePackets: 1,
                maximumBytes: 10, maximumPackets: 3)
        ) { try queue.checkRoom(forBytes: 2, frames: 1) }
        #expect(throws: EngineBufferOverflow.self) { try queue.checkRoom(forBytes: 0, frames: 2) }
        // The writer takes the queued frames: room again.
        #expect(queue.written()?.frames.count == 2)
        #expect(queue.queuedBytes == 0)
        #expect(queue.queuedFrames == 0)
        try queue.checkRoom(forBytes: 10, frames: 3)
        #expect(EngineWebSocketSendQueue.frameLength(of: .message("abc")) == 4)
        #expect(EngineWebSocketSendQueue.frameLength(of: .binaryMessage([1, 2])) == 2)
    }

    @Test func aFailedQueueForgetsWhatItHeld() {
        var queue = EngineWebSocketSendQueue()
        _ = queue.enqueue(.frames([.text("4a")], writeID: 0))
        _ = queue.enqueue(.frames([.text("4b")], writeID: 1))
        #expect(queue.queuedBytes == 2)
        #expect(queue.fail() == [1])
        #expect(queue.queuedBytes == 0)
        #expect(queue.queuedFrames == 0)
    }
}
