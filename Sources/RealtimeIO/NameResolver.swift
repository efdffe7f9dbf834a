#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
package import RealtimeTime
import Glibc
import RealtimeSync

/// Resolves host names with `getaddrinfo(3)` without blocking an event loop or Swift's
/// cooperative pool: one per ``EventLoopGroup``, shared by its loops.
///
/// Numeric IPv4 and IPv6 literals are parsed directly. Names are queued to a small fixed pool of
/// dedicated resolver threads (``threadCount``), the group's; the calling task suspends on a
/// continuation that the resolver thread resumes with the result. A deadline (a timer of the
/// connection's loop) or task cancellation resumes the caller early; the resolver thread's late
/// answer is then dropped. ``shutdown()`` (the group's) fails queued requests with
/// `.eventLoopShutDown` and ends the threads once their current call returns.
///
/// - Important: `getaddrinfo` cannot be interrupted, so a hanging DNS server can occupy a resolver
///   thread until the system resolver gives up (see `resolv.conf` `timeout`/`attempts`); callers
///   are never held past their deadline.
// @unchecked Sendable: `semaphore` points to a `sem_t` allocated once in `init` and freed only in
// `deinit` (the threads hold the resolver until they end); `sem_post`/`sem_wait` are
// thread-safe by definition. Everything else is under the one lock.
package final class NameResolver: @unchecked Sendable {
    /// Number of dedicated resolver threads.
    static let threadCount = 2

    private struct State {
        var queue: [ResolutionRequest] = []
        /// Set by ``shutdown()`` (or when no thread could start).
        var shutdownError: NetworkError?
        var runningThreads = 0
    }

    private let state = LockedValue(State())
    /// Counts queued requests (and, after shutdown, one post per thread to end it); resolver
    /// threads sleep on it.
    private let semaphore: UnsafeMutablePointer<sem_t>

    /// Starts the resolver threads, named `<namePrefix>d0`, `<namePrefix>d1`.
    init(namePrefix: String) {
        self.semaphore = .allocate(capacity: 1)
        sem_init(self.semaphore, 0, 0)
        var started = 0
        var failure: Int32 = 0
        for index in 0..<Self.threadCount {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(ResolverThreadContext(resolver: self, name: "\(namePrefix)d\(index)"))
            let rc = pthread_create(
                &thread, nil,
                { argument in
                    guard let argument else { return nil }
                    let context = Unmanaged<ResolverThreadContext>.fromOpaque(argument).takeRetainedValue()
                    nameCurrentThread(context.name)
                    context.resolver.run()
                    return nil
                }, context.toOpaque())
            if rc == 0 {
                pthread_detach(thread)
                started += 1
            } else {
                context.release()
                failure = rc
            }
        }
        self.state.withLock { state in
            state.runningThreads = started
            if started == 0 {
                state.shutdownError = NetworkError(
                    .eventLoopShutDown, "no resolver thread could start (\(SystemErrno.describe(failure)))")
            }
        }
    }

    deinit {
        sem_destroy(self.semaphore)
        self.semaphore.deallocate()
    }

    /// The addresses of `host` in the order `getaddrinfo` returns them (RFC 6724 order in glibc).
    ///
    /// - Parameter loop: the loop whose timer enforces `deadline` (the connection's).
    /// - Throws: `.nameResolutionFailed` if the name does not resolve, `.connectTimedOut` if the
    ///   deadline passes first, `.cancelled` if the task is cancelled, `.eventLoopShutDown` if
    ///   the resolver or the loop is shut down.
    package func resolve(
        host: String, port: UInt16,
        deadline: MonotonicInstant, on loop: EventLoop
    ) async throws(NetworkError) -> [SocketAddress] {
        if let literal = SocketAddress(numericHost: host, port: port) { return [literal] }
        guard !host.isEmpty, !host.utf8.contains(0) else {
            throw NetworkError(.invalidAddress, "invalid host name \"\(host)\"")
        }
        let request = ResolutionRequest(host: host, port: port)
        let timer = loop.scheduleTimer(
            at: deadline,
            onShutdown: { error in request.complete(.failure(error)) },
            {
                request.complete(
                    .failure(
                        NetworkError(
                            .connectTimedOut,
                            "resolving \(host) did not finish before the connect deadline")))
            })
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                request.install(continuation)
                self.enqueue(request)
            }
        } onCancel: {
            request.complete(.failure(NetworkError(.cancelled, "resolving \(host) was cancelled")))
        }
        request.resumed()
        return try result.get()
    }

    /// Fails queued requests with `.eventLoopShutDown` and ends the threads (each after the
    /// call it is in, if any). Idempotent.
    func shutdown() {
        let (queued, threads) = self.state.withLock { state -> ([ResolutionRequest], Int) in
            guard state.shutdownError == nil else { return ([], 0) }
            state.shutdownError = NetworkError(.eventLoopShutDown, "the name resolver was shut down")
            defer { state.queue = [] }
            return (state.queue, state.runningThreads)
        }
        let error = NetworkError(.eventLoopShutDown, "the name resolver was shut down")
        for request in queued { request.complete(.failure(error)) }
        for _ in 0..<threads { sem_post(self.semaphore) }
    }

    /// How many resolver threads run (for tests).
    var runningThreadCount: Int { self.state.withLock { $0.runningThreads } }

    private func enqueue(_ request: ResolutionRequest) {
        let refused = self.state.withLock { state -> NetworkError? in
            if let error = state.shutdownError { return error }
            state.queue.append(request)
            return nil
        }
        if let refused {
            request.complete(.failure(refused))
            return
        }
        sem_post(self.semaphore)
    }

    private func run() {
        while true {
            while sem_wait(self.semaphore) != 0 {}  // EINTR: retry
            let next = self.state.withLock { state -> ResolutionRequest?? in
                if state.shutdownError != nil {
                    state.runningThreads -= 1
                    return .none
                }
                return .some(state.queue.isEmpty ? nil : state.queue.removeFirst())
            }
            guard case .some(let request) = next else { return }
            guard let request, !request.isAbandoned else { continue }
            request.complete(Self.getaddrinfo(host: request.host, port: request.port))
        }
    }
}

/// One pending `getaddrinfo` call and the continuation waiting for it; completed exactly once.
final class ResolutionRequest: Sendable {
    let host: String
    let port: UInt16

    private enum State {
        case idle
        case waiting(UnsafeContinuation<Result<[SocketAddress], NetworkError>, Never>)
        case completedEarly(Result<[SocketAddress], NetworkError>)
        case done
    }

    private let state = LockedValue(State.idle)

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Whether nobody waits for the answer any more (the resolver thread may skip the work).
    var isAbandoned: Bool {
        self.state.withLock { state in
            if case .idle = state { return false }
            if case .waiting = state { return false }
            return true
        }
    }

    func install(_ continuation: UnsafeContinuation<Result<[SocketAddress], NetworkError>, Never>) {
        let early: Result<[SocketAddress], NetworkError>? = self.state.withLock { state in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .completedEarly(let result):
                state = .done
                return result
            case .waiting, .done:
                return .failure(NetworkError(.systemError, "resolution request reused"))
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Completes the request: resumes the waiting caller, or keeps the result for it.
    ///
    /// The continuation is resumed inside the request's lock, and the resumed caller takes the
    /// same lock before it goes on (``resumed()``): that orders the resolver thread's `resume`
    /// before the caller's next frames for ThreadSanitizer, which cannot see the concurrency
    /// runtime's own ordering (uninstrumented atomics) and reported the caller's reuse of the
    /// continuation's task memory as a race with `resume`'s read of it (swiftlang/swift#57803's
    /// pattern, here with the write in the caller's own frame). `resume` only enqueues the
    /// task; nothing runs under the lock.
    func complete(_ result: Result<[SocketAddress], NetworkError>) {
        self.state.withLock { state in
            switch state {
            case .idle:
                state = .completedEarly(result)
            case .waiting(let continuation):
                state = .done
                continuation.resume(returning: result)
            case .completedEarly, .done:
                break
            }
        }
    }

    /// Called by the resumed caller before it goes on: takes the lock ``complete(_:)`` resumed
    /// it under (see there).
    func resumed() {
        self.state.withLock { _ in }
    }
}

/// What a resolver thread starts with.
private final class ResolverThreadContext {
    let resolver: NameResolver
    let name: String

    init(resolver: NameResolver, name: String) {
        self.resolver = resolver
        self.name = name
    }
}

extension NameResolver {
    /// The blocking `getaddrinfo` call; runs only on resolver threads.
    private static func getaddrinfo(host: String, port: UInt16) -> Result<[SocketAddress], NetworkError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = Glibc.getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0 else {
            let reason = gai_strerror(rc).map { String(cString: $0) } ?? "error \(rc)"
            return .failure(NetworkError(.nameResolutionFailed, "cannot resolve \(host): \(reason)"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let sockaddr = entry.pointee.ai_addr,
                let address = SocketAddress(sockaddr, length: entry.pointee.ai_addrlen)
            {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(NetworkError(.nameResolutionFailed, "\(host) has no IPv4 or IPv6 address"))
        }
        return .success(addresses)
    }
}
#endif
