import RealtimeIO
import RealtimeSync

/// One direction of an in-memory connection: bytes written on one side, read on the other.
final class WebSocketMemoryPipe: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var finished = false
        var broken = false
        var reader: CheckedContinuation<Result<[UInt8], NetworkError>, Never>?
    }

    private let state = LockedValue(State())
    /// Every accepted write, as written (reads may merge them; this keeps the boundaries).
    private let writeLog = LockedValue<[[UInt8]]>([])

    /// The chunks written so far, one per `write` call that was accepted.
    var writes: [[UInt8]] { self.writeLog.withLock { $0 } }

    func write(_ bytes: [UInt8]) -> Bool {
        let (ok, reader) = self.state.withLock { state -> (Bool, CheckedContinuation<Result<[UInt8], NetworkError>, Never>?) in
            guard !state.finished, !state.broken else { return (false, nil) }
            if let reader = state.reader {
                state.reader = nil
                return (true, reader)
            }
            state.buffer.append(contentsOf: bytes)
            return (true, nil)
        }
        if ok { self.writeLog.withLock { $0.append(bytes) } }
        reader?.resume(returning: .success(bytes))
        return ok
    }

    func read(maxLength: Int) async -> Result<[UInt8], NetworkError> {
        await withCheckedContinuation { continuation in
            let immediate = self.state.withLock { state -> Result<[UInt8], NetworkError>? in
                if state.broken { return .failure(NetworkError(.closed, "closed")) }
                if !state.buffer.isEmpty {
                    let take = Array(state.buffer.prefix(maxLength))
                    state.buffer.removeFirst(take.count)
                    return .success(take)
                }
                if state.finished { return .success([]) }
                state.reader = continuation
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// The writer is done: a waiting reader sees EOF.
    func finish() {
        let reader = self.state.withLock { state in
            state.finished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: .success([]))
    }

    /// The reader closed: a waiting read fails with `.closed`.
    func breakPipe() {
        let reader = self.state.withLock { state in
            state.broken = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: .failure(NetworkError(.closed, "closed")))
    }
}

/// A ``ByteStream`` over two in-memory pipes, for connection tests without sockets.
final class WebSocketMemoryStream: ByteStream {
    private let inbound: WebSocketMemoryPipe
    private let outbound: WebSocketMemoryPipe
    private let closedFlag = LockedValue(false)

    private init(inbound: WebSocketMemoryPipe, outbound: WebSocketMemoryPipe) {
        self.inbound = inbound
        self.outbound = outbound
    }

    /// Two connected ends.
    static func pair() -> (client: WebSocketMemoryStream, server: WebSocketMemoryStream) {
        let up = WebSocketMemoryPipe()
        let down = WebSocketMemoryPipe()
        return (WebSocketMemoryStream(inbound: down, outbound: up), WebSocketMemoryStream(inbound: up, outbound: down))
    }

    var isClosed: Bool { self.closedFlag.withLock { $0 } }

    /// The chunks the other end wrote, one per write call (see ``WebSocketMemoryPipe/writes``).
    var peerWrites: [[UInt8]] { self.inbound.writes }

    /// Honours cancellation as `ByteStream` requires: a cancelled read closes the stream.
    func read(maxLength: Int) async throws(NetworkError) -> [UInt8] {
        try await withTaskCancellationHandler {
            await self.inbound.read(maxLength: maxLength)
        } onCancel: {
            self.close()
        }.get()
    }

    func write(_ bytes: [UInt8]) async throws(NetworkError) {
        guard self.outbound.write(bytes) else { throw NetworkError(.closed, "closed") }
    }

    func close() {
        self.closedFlag.withLock { $0 = true }
        self.outbound.finish()
        self.inbound.breakPipe()
    }
}
