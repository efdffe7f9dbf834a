import HTTP1Codec
import RealtimeSync

/// A response body read from an ``HTTPConnection``: the socket is read only while a caller
/// waits in ``next()`` (backpressure: at most one read of `readSize` bytes is held).
///
/// At the clean end of the body the connection goes back to the pool when the response
/// allows reuse (RFC 9112 §9.3), else it is closed. ``cancel()``, an error, a timeout, task
/// cancellation or dropping the body unread close it.
///
/// - Important: Unicast: one consumer calls ``next()`` at a time (a concurrent call throws
///   `.invalidResponse`); ``cancel()`` may be called from anywhere.
final class HTTPConnectionBodySource: HTTPBodySource {
    private enum Phase {
        case ready
        case reading
        case finished
        case failed(HTTPClientError)
    }

    private struct State {
        var parser: HTTPResponseParser
        var phase: Phase = .ready
        var receivedEOF = false
        /// A chunk parsed ahead by ``releaseIfComplete()``, delivered first.
        var pendingChunk: [UInt8]?
    }

    private enum Step {
        case deliver([UInt8])
        case complete(reusable: Bool)
        case read
        case fail(HTTPClientError, closing: Bool)
        case done
    }

    private let connection: HTTPConnection
    private let pool: HTTPConnectionPool
    private let watchdog: HTTPIdleWatchdog
    private let readSize: Int
    private let state: LockedValue<State>

    init(
        parser: HTTPResponseParser, connection: HTTPConnection, pool: HTTPConnectionPool,
        watchdog: HTTPIdleWatchdog, readSize: Int
    ) {
        self.connection = connection
        self.pool = pool
        self.watchdog = watchdog
        self.readSize = readSize
        self.state = LockedValue(State(parser: parser))
    }

    deinit {
        let unfinished = self.state.withLock { state -> Bool in
            if case .ready = state.phase { return true }
            if case .reading = state.phase { return true }
            return false
        }
        self.watchdog.stop()
        if unfinished { self.connection.close() }
    }

    func next() async throws(HTTPClientError) -> [UInt8]? {
        while true {
            switch self.step() {
            case .deliver(let bytes):
                return bytes
            case .done:
                return nil
            case .complete(let reusable):
                self.watchdog.stop()
                if reusable { self.pool.checkin(self.connection) } else { self.connection.close() }
                return nil
            case .fail(let error, let closing):
                if closing {
                    self.watchdog.stop()
                    self.connection.close()
                }
                throw error
            case .read:
                let bytes: [UInt8]
                do {
                    bytes = try await self.connection.read(maxLength: self.readSize, watchdog: self.watchdog)
                } catch {
                    throw self.fail(with: error)
                }
                let cancelled = self.state.withLock { state -> Bool in
                    guard case .reading = state.phase else { return true }
                    state.phase = .ready
                    if bytes.isEmpty { state.receivedEOF = true } else { state.parser.append(bytes) }
                    return false
                }
                if cancelled { throw HTTPClientError(.cancelled, "the body was cancelled") }
            }
        }
    }

    /// Parses what is already buffered: a response whose body is already complete (no body,
    /// or a small body that came with the head) gives its connection back to the pool now,
    /// without waiting for the consumer to read it.
    func releaseIfComplete() {
        let completion = self.state.withLock { state -> Bool? in
            guard case .ready = state.phase, state.pendingChunk == nil, !state.receivedEOF else { return nil }
            do throws(HTTPParseError) {
                switch try state.parser.next() {
                case .end?:
                    state.phase = .finished
                    return state.parser.canReuseConnection
                case .body(let bytes)?:
                    // Several chunks may already be buffered: keep every one of them.
                    state.pendingChunk = bytes
                    while true {
                        switch try state.parser.next() {
                        case .body(let more)?:
                            state.pendingChunk?.append(contentsOf: more)
                        case .end?:
                            state.phase = .finished
                            return state.parser.canReuseConnection
                        case .head?, nil:
                            return nil
                        }
                    }
                case .head?, nil:
                    return nil
                }
            } catch {
                // The consumer gets the error from `next()` (after any chunk parsed before it).
                state.phase = .failed(HTTPClientError(parseError: error))
                return false
            }
        }
        guard let reusable = completion else { return }
        if case .finished = self.state.withLock({ $0.phase }) {
            self.watchdog.stop()
            if reusable { self.pool.checkin(self.connection) } else { self.connection.close() }
        } else {
            self.watchdog.stop()
            self.connection.close()
        }
    }

    func cancel() {
        let wasActive = self.state.withLock { state -> Bool in
            switch state.phase {
            case .ready, .reading:
                state.phase = .failed(HTTPClientError(.cancelled, "the body was cancelled"))
                return true
            case .finished, .failed:
                return false
            }
        }
        if wasActive {
            self.watchdog.stop()
            self.connection.close()
        }
    }

    private func step() -> Step {
        self.state.withLock { state -> Step in
            if let chunk = state.pendingChunk {
                state.pendingChunk = nil
                return .deliver(chunk)
            }
            switch state.phase {
            case .finished:
                return .done
            case .failed(let error):
                return .fail(error, closing: false)
            case .reading:
                return .fail(
                    HTTPClientError(.invalidResponse, "concurrent reads of one response body"),
                    closing: false)
            case .ready:
                break
            }
            do throws(HTTPParseError) {
                let event = state.receivedEOF ? try state.parser.finish() : try state.parser.next()
                switch event {
                case .body(let bytes)?:
                    return .deliver(bytes)
                case .end?:
                    state.phase = .finished
                    return .complete(reusable: state.parser.canReuseConnection)
                case .head?:
                    // Only pipelining could produce a second head here, and the client never pipelines.
                    let error = HTTPClientError(.invalidResponse, "unexpected response after the body")
                    state.phase = .failed(error)
                    return .fail(error, closing: true)
                case nil:
                    if state.receivedEOF {
                        // A 101 head (no body follows) or an upgraded stream.
                        state.phase = .finished
                        return .complete(reusable: false)
                    }
                    state.phase = .reading
                    return .read
                }
            } catch {
                let clientError = HTTPClientError(parseError: error)
                state.phase = .failed(clientError)
                return .fail(clientError, closing: true)
            }
        }
    }

    /// Records a read failure and closes the connection; returns the error to report (the
    /// cancellation's, when ``cancel()`` closed the connection under the read).
    private func fail(with error: HTTPClientError) -> HTTPClientError {
        let reported = self.state.withLock { state -> HTTPClientError in
            if case .failed(let earlier) = state.phase { return earlier }
            state.phase = .failed(error)
            return error
        }
        self.watchdog.stop()
        self.connection.close()
        return reported
    }
}
