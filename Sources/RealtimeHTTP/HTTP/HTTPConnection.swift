import HTTP1Codec
import RealtimeIO
import RealtimeTime

/// One HTTP/1.1 connection: a byte stream to an origin, used by one exchange at a time and
/// kept in the pool between exchanges.
final class HTTPConnection: HTTPIdleTimeoutTarget {
    let stream: any ByteStream
    let origin: HTTPOrigin
    /// The loop the connection lives on: its idle timer is armed there.
    let eventLoop: EventLoop

    var timers: any TimerSource { self.eventLoop }

    init(stream: any ByteStream, origin: HTTPOrigin, eventLoop: EventLoop) {
        self.stream = stream
        self.origin = origin
        self.eventLoop = eventLoop
    }

    func close() { self.stream.close() }

    func idleTimeoutExpired() { self.stream.close() }

    /// Reads at most `maxLength` bytes (empty at EOF). Closes the stream, and throws
    /// `.timedOut`, when the read makes no progress for the watchdog's timeout, and
    /// `.cancelled` when the task is cancelled.
    func read(maxLength: Int, watchdog: HTTPIdleWatchdog) async throws(HTTPClientError) -> [UInt8] {
        try await self.waiting(on: watchdog) { stream throws(NetworkError) in
            try await stream.read(maxLength: maxLength)
        }
    }

    /// Writes every byte (see ``read(maxLength:watchdog:)`` for timeouts and cancellation).
    func write(_ bytes: [UInt8], watchdog: HTTPIdleWatchdog) async throws(HTTPClientError) {
        try await self.waiting(on: watchdog) { stream throws(NetworkError) in
            try await stream.write(bytes)
        }
    }

    private func waiting<Result: Sendable>(
        on watchdog: HTTPIdleWatchdog,
        _ operation: (any ByteStream) async throws(NetworkError) -> Result
    ) async throws(HTTPClientError) -> Result {
        if Task.isCancelled {
            self.stream.close()
            throw HTTPClientError(.cancelled, "the task was cancelled")
        }
        watchdog.beginWait(on: self)
        defer { watchdog.endWait() }
        // A cancelled wait shuts the stream down itself (`ByteStream`'s contract): no handler
        // of our own around each read and write (a status-record lock to add, one to remove).
        do throws(NetworkError) {
            return try await operation(self.stream)
        } catch {
            throw Self.clientError(for: error, watchdog: watchdog)
        }
    }

    static func clientError(for error: NetworkError, watchdog: HTTPIdleWatchdog) -> HTTPClientError {
        if watchdog.didTimeOut {
            return HTTPClientError(.timedOut, "no progress for \(watchdog.timeout)")
        }
        if Task.isCancelled || error.kind == .cancelled {
            return HTTPClientError(.cancelled, "the task was cancelled")
        }
        return HTTPClientError(error)
    }
}

extension HTTPClientError {
    /// The client-level error for a response the parser rejected.
    init(parseError: HTTPParseError) {
        switch parseError.kind {
        case .headersTooLarge, .tooManyHeaders:
            self.init(.headersTooLarge, parseError.message)
        case .truncatedBody:
            self.init(.truncatedBody, parseError.message)
        default:
            self.init(.invalidResponse, parseError.message)
        }
    }
}
