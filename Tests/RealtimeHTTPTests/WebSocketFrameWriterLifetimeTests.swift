import RealtimeIO
import RealtimeSync
import RealtimeTime
import TestSupport
import Testing
import WebSocketCodec

@testable import RealtimeHTTP

/// The task ``WebSocketFrameWriter`` starts for the rest of a partial immediate write belongs
/// to the writer: closing the writer or its connection, or dropping them, ends it, even when
/// the peer never takes another byte.
@Suite(TestTimeLimit.minutes(1)) struct WebSocketFrameWriterLifetimeTests {
    /// Takes `immediateLimit` bytes of the first immediate write and nothing after; `write`
    /// and `read` wait until the stream is closed or their task is cancelled (a peer that
    /// reads and sends nothing). Records how each `write` ended.
    final class StalledStream: ByteStream {
        private struct State {
            var closed = false
            var immediateWrites = 0
            var writer: CheckedContinuation<NetworkError, Never>?
            var reader: CheckedContinuation<NetworkError, Never>?
            var endedWrites: [NetworkError.Kind] = []
        }

        let immediateLimit: Int
        private let state = LockedValue(State())

        init(immediateLimit: Int) {
            self.immediateLimit = immediateLimit
        }

        var isClosed: Bool { self.state.withLock { $0.closed } }
        var endedWrites: [NetworkError.Kind] { self.state.withLock { $0.endedWrites } }
        var hasWaitingWriter: Bool { self.state.withLock { $0.writer != nil } }

        var supportsImmediateWrites: Bool { true }

        func writeImmediately(_ bytes: [UInt8]) throws(NetworkError) -> Int {
            let first = self.state.withLock { state -> Bool in
                if state.closed { return false }
                state.immediateWrites += 1
                return state.immediateWrites == 1
            }
            return first ? min(self.immediateLimit, bytes.count) : 0
        }

        func write(_ bytes: [UInt8]) async throws(NetworkError) {
            let error = await self.wait(\.writer)
            self.state.withLock { $0.endedWrites.append(error.kind) }
            throw error
        }

        func read(maxLength: Int) async throws(NetworkError) -> [UInt8] {
            throw await self.wait(\.reader)
        }

        private func wait(
            _ slot: WritableKeyPath<State, CheckedContinuation<NetworkError, Never>?> & Sendable
        ) async -> NetworkError {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<NetworkError, Never>) in
                    let immediate = self.state.withLock { state -> NetworkError? in
                        if state.closed { return NetworkError(.closed, "closed") }
                        if Task.isCancelled { return NetworkError(.cancelled, "cancelled") }
                        state[keyPath: slot] = continuation
                        return nil
                    }
                    if let immediate { continuation.resume(returning: immediate) }
                }
            } onCancel: {
                let waiter = self.state.withLock { state in
                    defer { state[keyPath: slot] = nil }
                    return state[keyPath: slot]
                }
                waiter?.resume(returning: NetworkError(.cancelled, "cancelled"))
            }
        }

        func close() {
            let (writer, reader) = self.state.withLock { state in
                state.closed = true
                defer {
                    state.writer = nil
                    state.reader = nil
                }
                return (state.writer, state.reader)
            }
            writer?.resume(returning: NetworkError(.closed, "closed"))
            reader?.resume(returning: NetworkError(.closed, "closed"))
        }
    }

    static let batch: [WebSocketMessage] = [.text(String(repeating: "a", count: 500))]

    /// Starts a partial immediate write on `writer` and waits until its task is in `write`.
    static func startStalledWrite(_ writer: WebSocketFrameWriter, on stream: StalledStream) async throws {
        #expect(try writer.sendImmediately(contentsOf: Self.batch))
        #expect(writer.hasPendingWrite)
        let waiting = await ProcessResources.eventually { stream.hasWaitingWriter }
        try #require(waiting, "the task never started writing")
    }

    @Test func closingTheWriterEndsItsTask() async throws {
        let stream = StalledStream(immediateLimit: 10)
        let writer = WebSocketFrameWriter(stream: stream, compressor: nil, eventLoop: EventLoopGroup.shared.next())
        try await Self.startStalledWrite(writer, on: stream)
        writer.close()
        await writer.waitForPendingWrite()
        #expect(!writer.hasPendingWrite)
        #expect(stream.endedWrites == [.cancelled])
        #expect(stream.isClosed, "a torn frame closes the stream")
        // The task released the writer's lock on its way out: a later send gets the writer
        // and fails on the closed stream instead of waiting.
        let late: NetworkError.Kind?
        do throws(NetworkError) {
            try await writer.send(.text("late"))
            late = nil
        } catch {
            late = error.kind
        }
        #expect(late == .closed)
    }

    @Test func droppingTheWriterEndsItsTask() async throws {
        let stream = StalledStream(immediateLimit: 10)
        weak var dropped: WebSocketFrameWriter?
        do {
            let writer = WebSocketFrameWriter(stream: stream, compressor: nil, eventLoop: EventLoopGroup.shared.next())
            dropped = writer
            try await Self.startStalledWrite(writer, on: stream)
        }
        // The task holds the stream and the lock, not the writer.
        #expect(dropped == nil, "the pending write kept its writer alive")
        let ended = await ProcessResources.eventually { stream.endedWrites == [.cancelled] }
        #expect(ended, "the task still runs: \(stream.endedWrites)")
    }

    @Test func closingTheConnectionEndsTheWritersTaskWithinTheCloseTimeout() async throws {
        let stream = StalledStream(immediateLimit: 10)
        let connection = WebSocketClientConnection(
            stream: stream, responseHeaders: HTTPHeaders(), bufferedBytes: [],
            maxMessageSize: 1 << 20, compression: nil, subprotocol: nil,
            closeTimeout: .milliseconds(200), eventLoop: EventLoopGroup.shared.next())
        #expect(try connection.sendImmediately(contentsOf: Self.batch))
        let waiting = await ProcessResources.eventually { stream.hasWaitingWriter }
        try #require(waiting)
        let started = MonotonicInstant.now
        // The close frame waits behind the stalled write; the close timeout ends both.
        await connection.close(code: 1000, reason: "")
        #expect(MonotonicInstant.now - started < .seconds(5))
        #expect(stream.isClosed)
        #expect(stream.endedWrites.first == .closed)
        #expect(connection.closeStatus?.code == 1006)
    }

    @Test func droppingTheConnectionEndsTheWritersTask() async throws {
        let stream = StalledStream(immediateLimit: 10)
        do {
            let connection = WebSocketClientConnection(
                stream: stream, responseHeaders: HTTPHeaders(), bufferedBytes: [],
                maxMessageSize: 1 << 20, compression: nil, subprotocol: nil,
                closeTimeout: .seconds(3_600), eventLoop: EventLoopGroup.shared.next())
            #expect(try connection.sendImmediately(contentsOf: Self.batch))
            let waiting = await ProcessResources.eventually { stream.hasWaitingWriter }
            try #require(waiting)
        }
        let ended = await ProcessResources.eventually { !stream.endedWrites.isEmpty }
        #expect(ended, "the writer's task outlived its connection")
        #expect(stream.isClosed)
    }

    /// A fast producer starts at most one task however many immediate sends it makes while
    /// the peer takes nothing (so it cannot grow the event loop's job list): the sends after
    /// the first partial one return `false` (writer busy) and buffer nothing.
    @Test func immediateSendsBehindAStalledWriteStartNoMoreTasks() async throws {
        let stream = StalledStream(immediateLimit: 10)
        let writer = WebSocketFrameWriter(stream: stream, compressor: nil, eventLoop: EventLoopGroup.shared.next())
        try await Self.startStalledWrite(writer, on: stream)
        var accepted = 0
        for _ in 0..<10_000 where try writer.sendImmediately(contentsOf: Self.batch) { accepted += 1 }
        #expect(accepted == 0)
        #expect(writer.hasPendingWrite)
        writer.close()
        await writer.waitForPendingWrite()
        #expect(stream.endedWrites == [.cancelled], "one task, cancelled once")
    }

    /// A send that waits for the writer (held by the stalled write) can be cancelled: it
    /// fails with `.cancelled` and the stalled write keeps the writer.
    @Test func aSendWaitingBehindAStalledWriteCanBeCancelled() async throws {
        let stream = StalledStream(immediateLimit: 10)
        let writer = WebSocketFrameWriter(stream: stream, compressor: nil, eventLoop: EventLoopGroup.shared.next())
        try await Self.startStalledWrite(writer, on: stream)
        let sending = Task { () -> NetworkError.Kind? in
            do throws(NetworkError) {
                try await writer.send(.text("queued"))
                return nil
            } catch {
                return error.kind
            }
        }
        try await Task.sleep(.milliseconds(50))
        sending.cancel()
        #expect(await sending.value == .cancelled)
        #expect(writer.hasPendingWrite)
        #expect(stream.endedWrites.isEmpty)
        writer.close()
        await writer.waitForPendingWrite()
    }
}
