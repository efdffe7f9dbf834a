import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeTime
import SSEProtocol

/// Runs a data task's connections for its iterator: connects, reads the body, decodes
/// events, and follows the ``EventSourceStateMachine``'s decisions (open, fail, close,
/// reconnect).
///
/// Pull-based: all work happens inside ``next()`` on the iterating task, so there is no
/// background task and no unbounded buffer. Events of one chunk are decoded at once and
/// handed out one by one without locking. The two tasks it may start (a connection attempt
/// and a reconnection wait) exist only so ``EventSource/DataTask/cancel()`` can stop them
/// from another task; the driver awaits them and cancels them on every exit path. Its timers
/// (the resource timeout, and the reconnection wait's) are the task's ``TimerSource`` (the
/// loop its native connections use), and it cancels them on every exit path too.
///
/// - Important: Not `Sendable`: owned by one iterator, used from the iterating task only.
@usableFromInline
final class EventStreamDriver {
    private enum Phase {
        case connect(attempt: Int)
        case stream(any HTTPBodySource)
        case wait(TimeAmount, attempt: Int)
        case finished
    }

    /// Bytes of an error response's body kept for `EventSourceError.connectionError`.
    static let errorBodyLimit = 64 << 10
    /// Redirects followed (the HTTP layer drops credentials across origins).
    static let maximumRedirects = 10

    private let task: EventSource.DataTask
    private let transport: any HTTPTransport
    private var decoder: EventDecoder
    /// The decoded events, behind a pointer the driver owns. As a stored property of this class
    /// every event taken from it would pay a dynamic exclusivity check (a thread-local access
    /// set, about 4% of an event's cost); the driver is used by one task at a time.
    private let buffer: UnsafeMutablePointer<EventBuffer> = {
        let buffer = UnsafeMutablePointer<EventBuffer>.allocate(capacity: 1)
        buffer.initialize(to: EventBuffer())
        return buffer
    }()
    private var phase: Phase = .connect(attempt: 0)
    private var activeSource: (any HTTPBodySource)?
    /// Ends the current connection when it outlives the resource timeout.
    private var resourceTimer: TimerHandle?
    /// Where the task's timers run (``EventSource/DataTask/Configuration/timers``).
    private let timers: any TimerSource

    init(task: EventSource.DataTask, extras: EventSource.Extras = []) {
        self.task = task
        self.transport = task.configuration.transport.makeHTTPTransport()
        self.timers = task.configuration.timers
        self.decoder = EventDecoder(
            kind: task.configuration.decoder,
            maximumEventSize: task.configuration.maximumEventSize,
            lastEventId: task.lastMessageId,
            extras: extras,
            terminator: task.configuration.terminator)
    }

    deinit {
        self.buffer.deinitialize(count: 1)
        self.buffer.deallocate()
        self.resourceTimer?.cancel()
        self.activeSource?.cancel()
        let cancelInFlight = self.task.state.withLock { state -> (@Sendable () -> Void)? in
            state.machine.close()
            defer { state.cancelInFlight = nil }
            return state.cancelInFlight
        }
        cancelInFlight?()
    }

    /// The next already-decoded event, without suspending; `nil` when none is buffered or the
    /// task was cancelled (then ``next()`` finishes the work).
    @usableFromInline
    func nextBuffered() -> EventSource.EventType? {
        if Task.isCancelled || self.task.isCancelled { return nil }
        let (event, lastEventId) = self.buffer.pointee.next()
        if let lastEventId {
            self.task.state.withLock { $0.lastMessageId = lastEventId }
        }
        return event
    }

    /// The next event, or `nil` once the stream is over or cancelled.
    nonisolated(nonsending) func next() async -> EventSource.EventType? {
        while true {
            if Task.isCancelled || self.task.isCancelled {
                self.shutDown()
                return nil
            }
            let (event, lastEventId) = self.buffer.pointee.next()
            if let lastEventId {
                self.task.state.withLock { $0.lastMessageId = lastEventId }
            }
            if let event { return event }
            guard await self.step() else { return nil }
        }
    }

    /// The next event, comment or retry (``EventSource/DataTask/events(including:)``), or
    /// `nil` once the stream is over or cancelled.
    nonisolated(nonsending) func nextElement() async -> EventSource.StreamElement? {
        while true {
            if Task.isCancelled || self.task.isCancelled {
                self.shutDown()
                return nil
            }
            if let extra = self.buffer.pointee.nextExtra() { return EventSource.StreamElement(extra) }
            let (event, lastEventId) = self.buffer.pointee.next()
            if let lastEventId {
                self.task.state.withLock { $0.lastMessageId = lastEventId }
            }
            if let event { return EventSource.StreamElement(event: event) }
            guard await self.step() else { return nil }
        }
    }

    /// Does the current phase's work (connect, read a chunk, wait); `false` once finished.
    nonisolated(nonsending) private func step() async -> Bool {
        if self.beginRestartIfRequested() { return true }
        switch self.phase {
        case .finished:
            return false
        case .connect(let attempt):
            await self.connect(attempt: attempt)
        case .stream(let source):
            if self.takeResourceTimeout() {
                self.end(with: Self.resourceTimeoutError)
            } else {
                await self.read(source)
            }
        case .wait(let delay, let attempt):
            await self.wait(delay, attempt: attempt)
        }
        return true
    }

    // MARK: - Restart and resource timeout

    /// Begins a restart the caller asked for (``EventSource/DataTask/restart()``): the current
    /// connection, attempt or wait is dropped and the next step connects as a reconnection.
    private func beginRestartIfRequested() -> Bool {
        guard let attempt = self.task.state.withLock({ $0.machine.beginRestart() }) else { return false }
        self.stopResourceTimer()
        self.activeSource?.cancel()
        self.activeSource = nil
        self.phase = .connect(attempt: attempt)
        return true
    }

    private var restartRequested: Bool {
        self.task.state.withLock { $0.machine.restartRequested }
    }

    static let resourceTimeoutError = HTTPClientError(.timedOut, "the connection lasted longer than timeoutIntervalForResource")

    /// Starts the timer that ends the new connection after the resource timeout, if any.
    private func startResourceTimer() {
        self.stopResourceTimer()
        guard let timeout = self.task.configuration.resourceTimeout else { return }
        let task = self.task
        let number = task.state.withLock { state -> Int in
            state.connectionNumber += 1
            state.resourceTimedOut = false
            return state.connectionNumber
        }
        // Short, on the source's thread: it takes the in-flight operation's cancellation under
        // the task's lock and runs it (cancelling a task or a body source never blocks).
        self.resourceTimer = self.timers.schedule(at: self.timers.now + timeout) {
            let cancelInFlight = task.state.withLock { state -> (@Sendable () -> Void)? in
                guard state.connectionNumber == number, !state.machine.isClosed else { return nil }
                state.resourceTimedOut = true
                defer { state.cancelInFlight = nil }
                return state.cancelInFlight
            }
            cancelInFlight?()
        }
    }

    private func stopResourceTimer() {
        guard let timer = self.resourceTimer else { return }
        timer.cancel()
        self.resourceTimer = nil
        self.task.state.withLock { state in
            state.connectionNumber += 1
            state.resourceTimedOut = false
        }
    }

    /// Whether the current connection outlived the resource timeout (clears the flag).
    private func takeResourceTimeout() -> Bool {
        guard self.resourceTimer != nil else { return false }
        return self.task.state.withLock { state in
            defer { state.resourceTimedOut = false }
            return state.resourceTimedOut
        }
    }

    // MARK: - Connecting

    nonisolated(nonsending) private func connect(attempt: Int) async {
        let seeded = self.task.state.withLock { state -> String? in
            defer { state.seededLastEventId = nil }
            return state.seededLastEventId
        }
        if let seeded { self.decoder.seedLastEventId(seeded) }
        var request = self.task.urlRequest
        let lastEventId = self.decoder.lastEventId
        if !lastEventId.isEmpty {
            request.setValue(lastEventId, forHTTPHeaderField: "Last-Event-ID")
        } else if attempt > 0 || seeded != nil {
            request.setValue(nil, forHTTPHeaderField: "Last-Event-ID")
        }
        if attempt > 0, let prepare = self.task.configuration.reconnectionPolicy.prepareRequest {
            request = await prepare(request, attempt)
        }
        guard let clientRequest = self.clientRequest(for: request) else {
            self.end(with: HTTPClientError(.invalidURL, "the request has no URL with a scheme"))
            return
        }
        let transport = self.transport
        self.startResourceTimer()
        let outcome = await self.runCancellable { () async -> Result<HTTPClientResponse, HTTPClientError> in
            do throws(HTTPClientError) {
                return .success(try await transport.execute(clientRequest))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else { return }  // cancelled
        let response: HTTPClientResponse
        switch outcome {
        case .success(let value): response = value
        case .failure(let error):
            self.end(with: error)
            return
        }
        if self.task.isCancelled || Task.isCancelled {
            response.body.cancel()
            self.shutDown()
            return
        }
        if self.restartRequested {
            response.body.cancel()
            return
        }
        if self.takeResourceTimeout() {
            response.body.cancel()
            self.end(with: Self.resourceTimeoutError)
            return
        }
        let head = HTTPURLResponse.head(of: response)
        let decision = self.task.state.withLock { state in
            state.response = head
            return state.machine.receivedHead(
                status: response.status, contentType: response.headers.first(name: "Content-Type"),
                at: .now)
        }
        switch decision {
        case .open:
            self.decoder.reset()
            self.activeSource = response.body.source
            self.task.state.withLock { state in
                let source = response.body.source
                state.cancelInFlight = { source.cancel() }
            }
            self.phase = .stream(response.body.source)
            self.buffer.pointee.append(.open)
        case .close:
            self.stopResourceTimer()
            response.body.cancel()
            self.phase = .finished
            self.buffer.pointee.append(.closed)
        case .fail(let statusCode):
            self.stopResourceTimer()
            let body = await self.readErrorBody(response.body.source)
            response.body.cancel()
            self.phase = .finished
            self.buffer.pointee.append(.error(EventSourceError.connectionError(statusCode: statusCode, response: Data(body))))
            self.buffer.pointee.append(.closed)
        }
    }

    /// The transport request for `request`: its method, headers and body, plus the
    /// event-stream headers it does not set itself. Any scheme goes through: the transport
    /// decides (the native client refuses all but http and https with `.invalidURL`,
    /// URLSession asks its protocol classes).
    private func clientRequest(for request: URLRequest) -> HTTPClientRequest? {
        guard let url = request.url, url.scheme?.isEmpty == false else { return nil }
        var headers = HTTPHeaders()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers.add(name: name, value: value)
        }
        if !headers.contains(name: "Accept") { headers.add(name: "Accept", value: "text/event-stream") }
        if !headers.contains(name: "Cache-Control") { headers.add(name: "Cache-Control", value: "no-cache") }
        let timeout = self.task.configuration.timeoutInterval
        return HTTPClientRequest(
            method: request.httpMethod ?? "GET",
            url: url,
            headers: headers,
            body: request.httpBody.map { [UInt8]($0) },
            idleTimeout: EventSourceStateMachine.duration(timeout > 0 ? timeout : 300),
            maxRedirects: Self.maximumRedirects,
            tls: self.task.configuration.security.configuration)
    }

    /// Reads up to ``errorBodyLimit`` bytes of an error response (whatever came before an
    /// error or the limit).
    nonisolated(nonsending) private func readErrorBody(_ source: any HTTPBodySource) async -> [UInt8] {
        var body: [UInt8] = []
        while body.count < Self.errorBodyLimit {
            guard
                let chunk = try? await withTaskCancellationHandler(
                    operation: { try await source.next() },
                    onCancel: { source.cancel() })
            else { break }
            body += chunk.prefix(Self.errorBodyLimit - body.count)
        }
        return body
    }

    // MARK: - Streaming

    nonisolated(nonsending) private func read(_ source: any HTTPBodySource) async {
        let chunk: [UInt8]?
        do {
            chunk = try await withTaskCancellationHandler(
                operation: { try await source.next() },
                onCancel: { source.cancel() })
        } catch {
            self.end(with: error as? HTTPClientError ?? HTTPClientError(.cancelled, "\(error)"))
            return
        }
        guard let chunk else {
            self.end(with: nil)
            return
        }
        do {
            if let retry = try self.decoder.decode(chunk, into: &self.buffer.pointee) {
                self.task.state.withLock { $0.machine.receivedRetry(milliseconds: retry) }
            }
            if self.decoder.isTerminated { self.finishAtTerminator(source) }
        } catch {
            self.stopResourceTimer()
            source.cancel()
            self.activeSource = nil
            self.task.state.withLock { state in
                state.machine.close()
                state.cancelInFlight = nil
            }
            let limit = self.task.configuration.maximumEventSize
            self.buffer.pointee.append(.error(EventStreamLimitError(error, maximumEventSize: limit)))
            self.buffer.pointee.append(.closed)
            self.phase = .finished
        }
    }

    /// The terminator arrived (``EventSource/terminator``): the stream is complete. The
    /// connection is closed without reading further and never resumed; `.closed` follows the
    /// events decoded before the terminator.
    private func finishAtTerminator(_ source: any HTTPBodySource) {
        self.stopResourceTimer()
        source.cancel()
        self.activeSource = nil
        self.task.state.withLock { state in
            state.machine.close()
            state.cancelInFlight = nil
        }
        self.buffer.pointee.append(.closed)
        self.phase = .finished
    }

    /// The connection ended: at the end of the body (`error == nil`) or with an error.
    private func end(with error: HTTPClientError?) {
        self.activeSource?.cancel()
        self.activeSource = nil
        if self.task.isCancelled || Task.isCancelled {
            self.shutDown()
            return
        }
        // A restart the caller asked for cancelled the connection: the next step begins it.
        if self.restartRequested { return }
        var error = error
        if self.takeResourceTimeout() { error = Self.resourceTimeoutError }
        self.stopResourceTimer()
        if error?.kind == .cancelled || error?.kind == .network(.cancelled) {
            self.shutDown()
            return
        }
        let decision = self.task.state.withLock { state in
            state.cancelInFlight = nil
            return state.machine.connectionEnded(failed: error != nil, at: .now, jitterUnit: Double.random(in: 0..<1))
        }
        if let error {
            self.buffer.pointee.append(.error(Self.publicError(error)))
        }
        switch decision {
        case .reconnect(let delay, let attempt):
            self.phase = .wait(delay, attempt: attempt)
        case .close:
            self.phase = .finished
            self.buffer.pointee.append(.closed)
        }
    }

    // MARK: - Reconnecting

    nonisolated(nonsending) private func wait(_ delay: TimeAmount, attempt: Int) async {
        let timers = self.timers
        let completed = await self.runCancellable { () async -> Bool in
            (try? await timers.sleep(for: delay)) != nil
        }
        guard completed == true else {
            if !self.restartRequested || self.task.isCancelled || Task.isCancelled { self.shutDown() }
            return
        }
        self.task.state.withLock { $0.machine.reconnect() }
        self.phase = .connect(attempt: attempt)
    }

    // MARK: - Cancellation

    /// Runs `operation` in a task that ``EventSource/DataTask/cancel()`` and the iterating
    /// task's cancellation both cancel; `nil` when cancelled before it could start.
    nonisolated(nonsending) private func runCancellable<Value: Sendable>(
        _ operation: @escaping @Sendable () async -> Value
    ) async -> Value? {
        let child = Task.detached(operation: operation)
        let registered = self.task.state.withLock { state -> Bool in
            guard !state.machine.isClosed else { return false }
            state.cancelInFlight = { child.cancel() }
            return true
        }
        guard registered else {
            child.cancel()
            return nil
        }
        let value = await withTaskCancellationHandler(
            operation: { await child.value },
            onCancel: { child.cancel() })
        self.task.state.withLock { $0.cancelInFlight = nil }
        return value
    }

    /// Stops everything: no more events.
    private func shutDown() {
        self.resourceTimer?.cancel()
        self.resourceTimer = nil
        self.activeSource?.cancel()
        self.activeSource = nil
        self.phase = .finished
        let cancelInFlight = self.task.state.withLock { state -> (@Sendable () -> Void)? in
            state.machine.close()
            defer { state.cancelInFlight = nil }
            return state.cancelInFlight
        }
        cancelInFlight?()
    }

    /// What callers see for a transport failure: `URLError` codes for network failures and
    /// timeouts, `EventSourceError.undefinedConnectionError` for a response that is not HTTP.
    static func publicError(_ error: HTTPClientError) -> any Error {
        let code: URLError.Code
        switch error.kind {
        case .invalidResponse:
            return EventSourceError.undefinedConnectionError
        case .invalidURL: code = .badURL
        case .timedOut: code = .timedOut
        case .headersTooLarge: code = .badServerResponse
        case .bodyTooLarge: code = .dataLengthExceedsMaximum
        case .truncatedBody: code = .networkConnectionLost
        case .invalidContentEncoding: code = .cannotDecodeContentData
        case .decompressedBodyTooLarge: code = .dataLengthExceedsMaximum
        case .tooManyRedirects: code = .httpTooManyRedirects
        case .cancelled: code = .cancelled
        case .network(let kind):
            switch kind {
            case .invalidAddress, .nameResolutionFailed: code = .cannotFindHost
            case .connectionRefused: code = .cannotConnectToHost
            case .connectTimedOut: code = .timedOut
            case .connectionReset, .closed: code = .networkConnectionLost
            case .tlsHandshakeFailed, .hostnameMismatch: code = .secureConnectionFailed
            case .certificateUntrusted: code = .serverCertificateUntrusted
            case .certificateExpired: code = .serverCertificateHasBadDate
            case .cancelled: code = .cancelled
            case .concurrentOperation, .systemError: code = .unknown
            case .proxyAuthenticationFailed: code = .userAuthenticationRequired
            case .proxyRefused: code = .cannotConnectToHost
            case .proxyFailed: code = .badServerResponse
            case .tooManyOpenFiles: code = .cannotConnectToHost
            case .eventLoopShutDown: code = .networkConnectionLost
            }
        }
        return URLError(code, userInfo: [NSLocalizedDescriptionKey: error.message])
    }
}
