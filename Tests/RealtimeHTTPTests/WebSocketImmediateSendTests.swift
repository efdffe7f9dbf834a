import RealtimeIO
import RealtimeSync
import TestSupport
import Testing
import WebSocketCodec

@testable import RealtimeHTTP

/// ``WebSocketFrameWriter/sendImmediately(contentsOf:)`` when the stream takes only part of
/// the frames at once: the rest is written by a task (on the event loop on Linux, on the
/// global executor in the `REALTIME_NO_NATIVE_STACK` build, as on Apple platforms, where the
/// loop does not exist), which keeps the writer's lock, so a later send follows it on the wire.
@Suite(TestTimeLimit.minutes(1)) struct WebSocketImmediateSendTests {
    /// Takes `immediateLimit` bytes of the first immediate write, nothing of later ones; logs
    /// every byte it accepts, in order.
    final class PartialStream: ByteStream {
        let immediateLimit: Int
        private let log = LockedValue<[[UInt8]]>([])
        private let immediateCalls = LockedValue(0)

        init(immediateLimit: Int) {
            self.immediateLimit = immediateLimit
        }

        var written: [UInt8] { self.log.withLock { $0.flatMap { $0 } } }
        var writeCount: Int { self.log.withLock { $0.count } }

        var supportsImmediateWrites: Bool { true }

        func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int {
            let first = self.immediateCalls.withLock { calls -> Bool in
                calls += 1
                return calls == 1
            }
            guard first else { return 0 }
            let taken = Array(bytes.prefix(self.immediateLimit))
            self.log.withLock { $0.append(taken) }
            return taken.count
        }

        func write(_ bytes: [UInt8]) async throws(NetworkError) {
            await Task.yield()
            self.log.withLock { $0.append(bytes) }
        }

        func read(maxLength: Int) async throws(NetworkError) -> [UInt8] {
            throw NetworkError(.closed, "write-only test stream")
        }

        func close() {}
    }

    @Test func theRestOfAPartialImmediateWriteGoesBeforeTheNextSend() async throws {
        let stream = PartialStream(immediateLimit: 10)
        let writer = WebSocketFrameWriter(stream: stream, compressor: nil, eventLoop: EventLoopGroup.shared.next())
        let batch: [WebSocketMessage] = [.text(String(repeating: "a", count: 200)), .binary([1, 2, 3])]
        #expect(try writer.sendImmediately(contentsOf: batch))
        // Waits for the writer's lock, which the task finishing the batch holds.
        try await writer.send(.text("after"))
        #expect(stream.writeCount == 3)

        let frames = try WebSocketBatchSendTests.frames(in: stream.written)
        #expect(
            frames == [
                WebSocketFrame(opcode: .text, payload: Array(String(repeating: "a", count: 200).utf8)),
                WebSocketFrame(opcode: .binary, payload: [1, 2, 3]),
                WebSocketFrame(opcode: .text, payload: Array("after".utf8)),
            ])
        // The task released the lock: the writer takes an immediate send again (this stream now
        // takes nothing at once, so a task writes all of it), and a send after it follows it.
        #expect(try writer.sendImmediately(contentsOf: [.text("x")]))
        try await writer.send(.text("y"))
        let tail = try WebSocketBatchSendTests.frames(in: stream.written).dropFirst(3)
        #expect(
            Array(tail) == [
                WebSocketFrame(opcode: .text, payload: Array("x".utf8)),
                WebSocketFrame(opcode: .text, payload: Array("y".utf8)),
            ])
    }
}
