#if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
package import RealtimeTime
import Glibc
import RealtimeSync

/// Resolves host names with `getaddrinfo(3)` without blocking the event loop or Swift's
/// cooperative pool.
///
/// Numeric IPv4 and IPv6 literals are parsed directly. Names are queued to a small fixed pool of
/// dedicated resolver threads (``threadCount``); the calling task suspends on a continuation
/// that the resolver thread resumes with the result. A deadline (a loop timer) or task
/// cancellation resumes the caller early; the resolver thread's late answer is then dropped.
///
/// - Important: `getaddrinfo` cannot be interrupted, so a hanging DNS server can occupy a resolver
///   thread until the system resolver gives up (see `resolv.conf` `timeout`/`attempts`); callers
///   are never held past their deadline.
package enum NameResolver {
    /// Number of dedicated resolver threads.
    static let threadCount = 2

    /// The addresses of `host` in the order `getaddrinfo` returns them (RFC 6724 order in glibc).
    ///
    /// - Throws: `.nameResolutionFailed` if the name does not resolve, `.connectTimedOut` if the
    ///   deadline passes first, `.cancelled` if the task is cancelled.
    package static func resolve(
        host: String, port: UInt16,
        deadline: MonotonicInstant
    ) async throws(NetworkError) -> [SocketAddress] {
        if let literal = SocketAddress(numericHost: host, port: port) { return [literal] }
        guard !host.isEmpty, !host.utf8.contains(0) else {
            throw NetworkError(.invalidAddress, "invalid host name \"\(host)\"")
        }
        let request = ResolutionRequest(host: host, port: port)
        let timer = EventLoop.shared.scheduleTimer(at: deadline) {
            request.complete(
                .failure(
                    NetworkError(
                        .connectTimedOut,
                        "resolving \(host) did not finish before the connect deadline")))
        }
        defer { EventLoop.shared.cancelTimer(timer) }
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                request.install(continuation)
                ResolverPool.shared.enqueue(request)
            }
        } onCancel: {
            request.complete(.failure(NetworkError(.cancelled, "resolving \(host) was cancelled")))
        }
        return try result.get()
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

    func complete(_ result: Result<[SocketAddress], NetworkError>) {
        let continuation: UnsafeContinuation<Result<[SocketAddress], NetworkError>, Never>? =
            self.state.withLock { state in
                switch state {
                case .idle:
                    state = .completedEarly(result)
                    return nil
                case .waiting(let continuation):
                    state = .done
                    return continuation
                case .completedEarly, .done:
                    return nil
                }
            }
        continuation?.resume(returning: result)
    }
}

/// The fixed pool of resolver threads and their FIFO queue.
// @unchecked Sendable: `semaphore` points to a `sem_t` allocated once in `init` and never freed or
// reassigned; `sem_post`/`sem_wait` are thread-safe by definition. The queue is under its lock.
final class ResolverPool: @unchecked Sendable {
    static let shared = ResolverPool()

    private let queue = LockedValue<[ResolutionRequest]>([])
    /// Counts queued requests; resolver threads sleep on it. Allocated once, never freed.
    private let semaphore: UnsafeMutablePointer<sem_t>

    private init() {
        self.semaphore = .allocate(capacity: 1)
        sem_init(self.semaphore, 0, 0)
        for _ in 0..<NameResolver.threadCount {
            var thread = pthread_t()
            let rc = pthread_create(
                &thread, nil,
                { argument in
                    guard let argument else { return nil }
                    let pool = Unmanaged<ResolverPool>.fromOpaque(argument).takeRetainedValue()
                    pool.run()
                    return nil
                }, Unmanaged.passRetained(self).toOpaque())
            precondition(rc == 0, "ResolverPool: pthread_create failed (\(rc))")
            pthread_detach(thread)
        }
    }

    func enqueue(_ request: ResolutionRequest) {
        self.queue.withLock { $0.append(request) }
        sem_post(self.semaphore)
    }

    private func run() {
        while true {
            while sem_wait(self.semaphore) != 0 {}  // EINTR: retry
            let request = self.queue.withLock { queue in queue.isEmpty ? nil : queue.removeFirst() }
            guard let request, !request.isAbandoned else { continue }
            request.complete(Self.getaddrinfo(host: request.host, port: request.port))
        }
    }

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
