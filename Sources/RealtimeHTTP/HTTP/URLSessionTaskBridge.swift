import Foundation
import RealtimeIO
import RealtimeSync
import RealtimeTime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one URLSession data task, shared by the session delegate (producer) and the
/// ``HTTPResponseBody`` consumer: the pending response head and a bounded queue of body
/// chunks.
///
/// Backpressure: when the queued bytes exceed `bufferLimit` the task is suspended; it is
/// resumed once the consumer drained the queue below half the limit. That holds where a
/// suspension pauses the transfer (``Self/suspensionPausesTheTransfer``). On
/// swift-corelibs-foundation (Linux) it does not: the task is never suspended, and a queue that
/// grows past ``hardBufferLimit`` fails the body with `.bodyTooLarge` instead of growing without
/// bound. Data that arrives after the consumer cancelled (or the task ended) is dropped on every
/// platform: swift-corelibs-foundation does not stop delivering it at once.
///
/// Idle timeout: an ``HTTPIdleWatchdog`` times the waits for the head and for each body
/// chunk the consumer waits for, and cancels the task when one lasts the request's
/// `idleTimeout`. (URLSession's own `timeoutInterval` keeps running while a task is suspended,
/// so it would fail a consumer that merely paused; it is set far beyond.)
///
/// Task control: every `resume()`, `suspend()` and `cancel()` on the data task is made under
/// one lock, one call at a time, and a suspension is applied as the state wants it at that
/// moment. swift-corelibs-foundation (6.3.1) applies `suspend()` in a block it queues from
/// inside its own `workQueue.sync`; a `cancel()` or `resume()` from another thread that enters
/// the queue while that `sync` runs is executed before the block, which then finds the task
/// neither suspended nor failed and traps (`_NativeProtocol.stopLoading`, NativeProtocol.swift
/// line 69: `guard let error = self.task?.error else { fatalError() }`). Serialized, the block
/// is always queued before the next call. The same lock orders the consumer's resume after
/// the delegate's suspend (applied the other way round, a task stayed suspended for good).
///
/// Authentication challenges: Apple's URLSession settles a 401 / 407 challenge before it
/// reports a response, but swift-corelibs-foundation reports the 401 response and its body
/// first, asks the session delegate at the end of that body, and after a credential reports the
/// retried response and its body on the same task. There a challenged response is held
/// (``Self/holdsChallengedResponses``) until the task completes or a later response replaces
/// it, so the consumer sees one response and one body, as on Apple platforms; a response that
/// replaces one already delivered fails the body with `.invalidResponse` instead of appending
/// a second body to the first.
final class URLSessionTaskBridge: HTTPBodySource, HTTPIdleTimeoutTarget {
    typealias HeadResult = Result<HTTPURLResponse, HTTPClientError>

    private struct State {
        var headWaiter: CheckedContinuation<HeadResult, Never>?
        var head: HeadResult?
        var chunks: [[UInt8]] = []
        var chunkIndex = 0
        var bufferedBytes = 0
        var completion: HTTPClientError??  // nil: running; .some(nil): finished; .some(error): failed
        var bodyWaiter: CheckedContinuation<Result<[UInt8]?, HTTPClientError>, Never>?
        var isSuspended = false
        var cancelledByConsumer = false
        /// The server-trust evaluation rejected the server: the task's cancellation that follows
        /// is reported as this failure.
        var trustFailure: URLSessionServerTrust.Failure?
        /// A challenged response (and the body bytes after it) not delivered yet: a retried
        /// response may replace it (see ``URLSessionTaskBridge/holdsChallengedResponses``).
        var held: HeldResponse?
    }

    /// A challenged response and the body bytes that came after it.
    struct HeldResponse {
        var response: HTTPURLResponse
        var body: [[UInt8]] = []
        var bytes = 0
    }

    /// Whether a challenged response waits for the task's end or its replacement: on
    /// swift-corelibs-foundation, which reports it before asking the delegate.
    static var holdsChallengedResponses: Bool {
        #if canImport(FoundationNetworking)
        true
        #else
        false
        #endif
    }

    /// A 401 or 407 that names a scheme: URLSession asks the session delegate about it.
    static func isChallenge(_ response: HTTPURLResponse) -> Bool {
        switch response.statusCode {
        case 401: response.value(forHTTPHeaderField: "WWW-Authenticate") != nil
        case 407: response.value(forHTTPHeaderField: "Proxy-Authenticate") != nil
        default: false
        }
    }

    /// The data task and what was asked of it; its lock is held across each call on the task
    /// (taken before `state`'s, never inside it).
    private struct Control {
        var task: URLSessionDataTask?
        var started = false
        var cancelled = false
        /// `suspend()` was the last suspension call made on the task.
        var suspended = false
    }

    let bufferLimit: Int
    private let watchdog: HTTPIdleWatchdog
    private let state = LockedValue(State())
    private let control = LockedValue(Control())

    /// The most bytes queued for a consumer that does not read where the task cannot be
    /// suspended: 16 times `bufferLimit`, at least 4 MiB.
    var hardBufferLimit: Int { max(self.bufferLimit * 16, 4 << 20) }

    /// Whether `suspend()` pauses a running transfer, so that `resume()` continues it.
    ///
    /// swift-corelibs-foundation (6.3.1) suspends a running transfer by removing its libcurl
    /// handle from the multi handle (`_NativeProtocol.suspend()`: `.transferInProgress` to
    /// `.transferReady`), which ends the transfer, and resumes it by adding the handle back,
    /// which sends the request again: the server sees a second request (a POST's body too) and
    /// the task reports a second response and its body from the first byte. Measured: a
    /// consumer that paused 2 s on a fast stream got that second response in 1 of 8 runs on
    /// two loaded cores (`URLSessionHTTPTransportTests.aConsumerThatStopsReadingFailsTyped`).
    /// There the bridge never suspends its task; ``hardBufferLimit`` bounds what it queues.
    static var suspensionPausesTheTransfer: Bool {
        #if canImport(FoundationNetworking)
        false
        #else
        true
        #endif
    }

    /// The bridge wants its task suspended for backpressure (for tests; where
    /// ``suspensionPausesTheTransfer`` is false the task itself runs on).
    var isSuspended: Bool { self.state.withLock { $0.isSuspended } }

    /// The task, its state and the bridge's, for a test's failure message.
    var debugState: String {
        let task = self.dataTask
        return self.state.withLock { state in
            "task \(task.map { "\($0.taskIdentifier) state \($0.state.rawValue)" } ?? "none"), suspended \(state.isSuspended), "
                + "cancelled \(state.cancelledByConsumer), completion \(String(describing: state.completion)), "
                + "head \(state.head != nil), queued \(state.bufferedBytes)"
        }
    }

    /// Body bytes queued unread (for tests).
    var queuedByteCount: Int { self.state.withLock { $0.bufferedBytes } }

    /// Whether this bridge suspends its task for backpressure: ``suspensionPausesTheTransfer``
    /// (tests of the Apple platforms' path pass `true` with a scripted task).
    private let suspendsTask: Bool

    /// The loop whose timer enforces the idle timeout (URLSession runs the transfer itself):
    /// its timer heap on the native stack, Dispatch where there is none.
    let eventLoop: EventLoop

    var timers: any TimerSource { self.eventLoop }

    init(
        bufferLimit: Int, idleTimeout: TimeAmount, eventLoop: EventLoop,
        suspendsTask: Bool = URLSessionTaskBridge.suspensionPausesTheTransfer
    ) {
        self.bufferLimit = bufferLimit
        self.eventLoop = eventLoop
        self.suspendsTask = suspendsTask
        self.watchdog = HTTPIdleWatchdog(timeout: idleTimeout)
    }

    deinit {
        self.watchdog.stop()
        // Nobody can read this exchange any more: end a task that is still running (the
        // session delegate holds bridges weakly, so this is also what ends a task whose
        // consumer went away without cancelling).
        if self.state.withLock({ $0.completion == nil }) { self.cancelTask() }
    }

    func idleTimeoutExpired() {
        self.cancelTask()
    }

    func attach(_ task: URLSessionDataTask) {
        self.control.withLock { $0.task = task }
    }

    private var dataTask: URLSessionDataTask? { self.control.withLock { $0.task } }

    // MARK: Task control (serialized; see the type's documentation)

    private func startTask() {
        self.control.withLock { control in
            guard !control.started, !control.cancelled, let task = control.task else { return }
            control.started = true
            task.resume()
        }
    }

    private func cancelTask() {
        self.control.withLock { control in
            guard !control.cancelled, let task = control.task else { return }
            control.cancelled = true
            task.cancel()
        }
    }

    /// The session is about to report the task complete (its delegate's
    /// `didCompleteWithError`, before its barrier against swift-corelibs-foundation's cancel
    /// race; see `URLSessionTransportDelegate`): no `cancel()` is made from here on. A cancel
    /// is made under the same lock, so one that came first has queued its report before this
    /// returns, and the barrier lets it run before the session forgets the task.
    func taskWillComplete() {
        self.control.withLock { $0.cancelled = true }
    }

    /// Suspends or resumes the task as the state wants it now (called after each change).
    private func applySuspension() {
        guard self.suspendsTask else { return }
        self.control.withLock { control in
            guard control.started, !control.cancelled, let task = control.task else { return }
            let wanted = self.state.withLock { $0.isSuspended && $0.completion == nil }
            guard wanted != control.suspended else { return }
            control.suspended = wanted
            if wanted { task.suspend() } else { task.resume() }
        }
    }

    // MARK: Consumer side

    /// Starts the task and waits for the response head.
    func start() async -> HeadResult {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HeadResult, Never>) in
                let ready = self.state.withLock { state -> HeadResult? in
                    if let head = state.head { return head }
                    state.headWaiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else {
                    self.watchdog.beginWait(on: self)
                    self.startTask()
                }
            }
        } onCancel: {
            self.cancelTask()
        }
    }

    func next() async throws(HTTPClientError) -> [UInt8]? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8]?, HTTPClientError>, Never>) in
                enum Action {
                    case deliver(Result<[UInt8]?, HTTPClientError>, resume: Bool)
                    case wait
                }
                let action = self.state.withLock { state -> Action in
                    if state.chunkIndex < state.chunks.count {
                        let chunk = state.chunks[state.chunkIndex]
                        state.chunks[state.chunkIndex] = []
                        state.chunkIndex += 1
                        if state.chunkIndex == state.chunks.count {
                            state.chunks.removeAll(keepingCapacity: true)
                            state.chunkIndex = 0
                        }
                        state.bufferedBytes -= chunk.count
                        var resume = false
                        if state.isSuspended && state.bufferedBytes <= self.bufferLimit / 2 {
                            state.isSuspended = false
                            resume = true
                        }
                        return .deliver(.success(chunk), resume: resume)
                    }
                    switch state.completion {
                    case .some(.none): return .deliver(.success(nil), resume: false)
                    case .some(.some(let error)): return .deliver(.failure(error), resume: false)
                    case .none:
                        if state.bodyWaiter != nil {
                            return .deliver(
                                .failure(
                                    HTTPClientError(
                                        .invalidResponse,
                                        "concurrent reads of one response body")),
                                resume: false)
                        }
                        state.bodyWaiter = continuation
                        // Under the lock, so the delivery's `endWait()` cannot come first.
                        self.watchdog.beginWait(on: self)
                        return .wait
                    }
                }
                if case .deliver(let result, let resume) = action {
                    if resume { self.applySuspension() }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            self.cancel()
        }
        return try result.get()
    }

    func cancel() {
        let running = self.state.withLock { state -> Bool in
            guard state.completion == nil else { return false }
            state.cancelledByConsumer = true
            return true
        }
        if running { self.cancelTask() }
    }

    // MARK: Delegate side

    /// The server's certificate was rejected in the trust challenge (Apple platforms): the
    /// task then completes with `NSURLErrorCancelled`, which is reported as this instead.
    func serverTrustRejected(_ failure: URLSessionServerTrust.Failure) {
        self.state.withLock { $0.trustFailure = failure }
    }

    func didReceive(response: URLResponse) {
        let result: HeadResult
        if let http = response as? HTTPURLResponse {
            result = .success(http)
        } else {
            result = .failure(HTTPClientError(.invalidResponse, "not an HTTP response"))
        }
        enum Action {
            case deliver(CheckedContinuation<HeadResult, Never>?)
            case hold, ignore
            case replaced(CheckedContinuation<Result<[UInt8]?, HTTPClientError>, Never>?)
        }
        let action = self.state.withLock { state -> Action in
            // A held response is replaced: its body is dropped with it.
            state.held = nil
            if state.head != nil {
                // The consumer has a response already: a second body must not follow its body.
                // (After the consumer's cancel nobody reads either; its task ends cancelled.)
                guard state.completion == nil, !state.cancelledByConsumer else { return .ignore }
                state.chunks.removeAll()
                state.chunkIndex = 0
                state.bufferedBytes = 0
                state.completion = .some(Self.replacedResponse)
                defer { state.bodyWaiter = nil }
                return .replaced(state.bodyWaiter)
            }
            if Self.holdsChallengedResponses, case .success(let http) = result, Self.isChallenge(http) {
                state.held = HeldResponse(response: http)
                return .hold
            }
            state.head = result
            defer { state.headWaiter = nil }
            return .deliver(state.headWaiter)
        }
        switch action {
        case .deliver(let waiter):
            self.watchdog.endWait()
            waiter?.resume(returning: result)
        case .ignore:
            break
        case .hold:
            // Still waiting for the response to deliver; the held one counts as progress.
            self.watchdog.beginWait(on: self)
        case .replaced(let bodyWaiter):
            self.watchdog.endWait()
            bodyWaiter?.resume(returning: .failure(Self.replacedResponse))
            self.cancelTask()
        }
    }

    /// The challenged response was answered without a credential: on swift-corelibs-foundation
    /// its body has arrived in full (it asks at the end of it), so deliver it and end the body
    /// here; the task's cancellation that follows does not fail it.
    func challengedResponseIsFinal() {
        let (headWaiter, bodyWaiter) = self.state.withLock { state in
            guard state.completion == nil else {
                return (
                    nil as (CheckedContinuation<HeadResult, Never>, HeadResult)?,
                    nil as CheckedContinuation<Result<[UInt8]?, HTTPClientError>, Never>?
                )
            }
            let released = Self.releaseHeldResponse(&state)
            guard state.head != nil else { return (nil, nil) }
            state.completion = .some(nil)
            defer { state.bodyWaiter = nil }
            return (released, state.bodyWaiter)
        }
        if headWaiter != nil || bodyWaiter != nil { self.watchdog.endWait() }
        if let (waiter, head) = headWaiter { waiter.resume(returning: head) }
        bodyWaiter?.resume(returning: .success(nil))
    }

    /// The body's failure when a retried response replaces one already delivered.
    static let replacedResponse = HTTPClientError(
        .invalidResponse,
        "the server's response was replaced by another after an authentication challenge")

    /// Makes a held response the task's response, with its body so far (it is final: the task
    /// ended, the challenge was answered without a credential, or its body outgrew the
    /// buffer). Call with the state locked; `false` when nothing was held.
    private static func promoteHeldResponse(_ state: inout State) -> Bool {
        guard let held = state.held, state.head == nil else { return false }
        state.held = nil
        state.head = .success(held.response)
        state.chunks = held.body
        state.chunkIndex = 0
        state.bufferedBytes = held.bytes
        return true
    }

    /// ``promoteHeldResponse(_:)``, taking the head waiter to resume with the response.
    private static func releaseHeldResponse(_ state: inout State) -> (CheckedContinuation<HeadResult, Never>, HeadResult)? {
        guard Self.promoteHeldResponse(&state), let head = state.head else { return nil }
        defer { state.headWaiter = nil }
        return state.headWaiter.map { ($0, head) }
    }

    func didReceive(data: Data) {
        let chunk = [UInt8](data)
        guard !chunk.isEmpty else { return }
        enum Action {
            case none
            case deliver(CheckedContinuation<Result<[UInt8]?, HTTPClientError>, Never>)
            case suspend, overflow
            case held
            case released(CheckedContinuation<HeadResult, Never>, HeadResult)
        }
        let action = self.state.withLock { state -> Action in
            // Nobody will read it: the consumer cancelled, or the task already ended.
            guard !state.cancelledByConsumer, state.completion == nil else { return .none }
            if state.held != nil {
                state.held?.body.append(chunk)
                state.held?.bytes += chunk.count
                // A challenge body larger than the buffer is no challenge page: deliver it.
                guard let held = state.held, held.bytes > self.bufferLimit else { return .held }
                return Self.releaseHeldResponse(&state).map { .released($0, $1) } ?? .none
            }
            if let waiter = state.bodyWaiter {
                state.bodyWaiter = nil
                return .deliver(waiter)
            }
            if state.bufferedBytes + chunk.count > self.hardBufferLimit {
                // The suspension was not honoured: fail instead of holding everything.
                state.chunks.removeAll()
                state.chunkIndex = 0
                state.bufferedBytes = 0
                state.completion = .some(
                    HTTPClientError(
                        .bodyTooLarge,
                        "more than \(self.hardBufferLimit) body bytes arrived unread while the transfer was suspended"))
                return .overflow
            }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            if state.bufferedBytes > self.bufferLimit && !state.isSuspended {
                state.isSuspended = true
                return .suspend
            }
            return .none
        }
        switch action {
        case .none: break
        case .deliver(let waiter):
            self.watchdog.endWait()
            waiter.resume(returning: .success(chunk))
        case .suspend: self.applySuspension()
        case .overflow: self.cancelTask()
        case .held: self.watchdog.beginWait(on: self)
        case .released(let waiter, let head):
            self.watchdog.endWait()
            waiter.resume(returning: head)
        }
    }

    func didComplete(error: (any Error)?) {
        // A redirect that was not followed completes without `didReceive(response:)`.
        let finalResponse = self.dataTask?.response as? HTTPURLResponse
        let timedOut = self.watchdog.didTimeOut
        self.watchdog.stop()
        let (headWaiter, bodyWaiter, outcome) = self.state.withLock { state in
            var failure = error.map { error -> HTTPClientError in
                if let rejection = state.trustFailure, !state.cancelledByConsumer,
                    (error as NSError).domain == NSURLErrorDomain, (error as NSError).code == NSURLErrorCancelled
                {
                    return HTTPClientError(.network(rejection.kind), rejection.message)
                }
                return Self.clientError(for: error, cancelledByConsumer: state.cancelledByConsumer)
            }
            if timedOut, failure != nil {
                failure = HTTPClientError(.timedOut, "no progress for \(self.watchdog.timeout)")
            }
            // An overflow already failed the body: keep its error, not the cancellation's.
            if let earlier = state.completion { failure = earlier }
            // The consumer cancelled and the data after that was dropped: a task that ended on
            // its own meanwhile (its `cancel()` then did nothing) must not end the body cleanly.
            if failure == nil, state.cancelledByConsumer {
                failure = HTTPClientError(.cancelled, "the body was cancelled")
            }
            // A held challenged response was not replaced: it is the task's response.
            if failure == nil { _ = Self.promoteHeldResponse(&state) }
            state.held = nil
            state.completion = .some(failure)
            if state.head == nil {
                if failure == nil, let finalResponse {
                    state.head = .success(finalResponse)
                } else {
                    state.head = .failure(failure ?? HTTPClientError(.invalidResponse, "no response"))
                }
            }
            let head = state.head
            defer {
                state.headWaiter = nil
                state.bodyWaiter = nil
            }
            return (state.headWaiter.map { ($0, head) }, state.bodyWaiter, failure)
        }
        if let (waiter, head) = headWaiter, let head { waiter.resume(returning: head) }
        if let bodyWaiter {
            bodyWaiter.resume(returning: outcome.map { .failure($0) } ?? .success(nil))
        }
    }

    static func clientError(for error: any Error, cancelledByConsumer: Bool) -> HTTPClientError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return HTTPClientError(.invalidResponse, nsError.localizedDescription)
        }
        switch nsError.code {
        case NSURLErrorCancelled:
            return HTTPClientError(.cancelled, "the task was cancelled")
        case NSURLErrorTimedOut:
            return HTTPClientError(.timedOut, "no progress within the idle timeout")
        case NSURLErrorCannotConnectToHost:
            return HTTPClientError(.network(.connectionRefused), nsError.localizedDescription)
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed:
            return HTTPClientError(.network(.nameResolutionFailed), nsError.localizedDescription)
        case NSURLErrorNetworkConnectionLost:
            return HTTPClientError(.network(.connectionReset), nsError.localizedDescription)
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL:
            return HTTPClientError(.invalidURL, nsError.localizedDescription)
        case NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasUnknownRoot,
            NSURLErrorSecureConnectionFailed:
            return HTTPClientError(.network(.certificateUntrusted), nsError.localizedDescription)
        case NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateNotYetValid:
            // Apple's default trust evaluation (FoundationNetworking reports neither).
            return HTTPClientError(.network(.certificateExpired), nsError.localizedDescription)
        case NSURLErrorHTTPTooManyRedirects:
            return HTTPClientError(.tooManyRedirects, nsError.localizedDescription)
        default:
            return HTTPClientError(.invalidResponse, "\(nsError.code): \(nsError.localizedDescription)")
        }
    }
}
