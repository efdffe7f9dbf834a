import HTTP1Codec
package import RealtimeIO
import RealtimeSync
package import RealtimeTransport

#if canImport(FoundationNetworking)
import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif

#if canImport(FoundationNetworking)
private typealias FoundationHTTPCookie = FoundationNetworking.HTTPCookie
#else
private typealias FoundationHTTPCookie = Foundation.HTTPCookie
#endif

/// An ``HTTPTransport`` over Foundation's URLSession (FoundationNetworking on Linux).
///
/// The body streams through `URLSessionDataDelegate`'s `didReceive data` into a bounded
/// queue behind ``HTTPBodySource``: when more than `bufferLimit` bytes wait unread the data
/// task is suspended, and resumed when the consumer drained half of them. Cancelling the
/// calling task (or the body) cancels the data task.
///
/// ``HTTPClientRequest/idleTimeout`` is enforced by a watchdog on the waits for the head and
/// for each body chunk (as on the native client: a consumer that pauses is not timed out);
/// redirects are followed here (not by URLSession) by ``HTTPRedirectPolicy``
/// up to ``HTTPClientRequest/maxRedirects``, one data task per hop. Cookies use the session configuration's cookie
/// storage (ephemeral by default). ``HTTPClientRequest/tls`` is applied in the server-trust
/// challenge where the platform issues one (Apple platforms; see ``URLSessionServerTrust``);
/// on Linux libcurl verifies against the system store and `tls` is not applied.
///
/// ``HTTPClientRequest/proxy`` becomes the session's `connectionProxyDictionary` (see
/// ``URLSessionProxy``): requests without a proxy use the session made from `configuration`
/// (the system's proxy settings), each proxy server gets a session of its own, made on first
/// use from a copy of `configuration` (so they share its cookie storage).
///
/// ``makeWebSocketTransport()`` opens WebSockets on the same sessions (one cookie store, one
/// trust decision, one proxy configuration for both), as upstream socket.io-client-swift did.
///
/// - Important: Thread-safe; the delegate runs on a private serial queue.
package final class URLSessionHTTPTransport: HTTPTransport {
    /// A session and the delegate that routes its callbacks (task identifiers are per session).
    struct Session: Sendable {
        let session: URLSession
        let delegate: URLSessionTransportDelegate
    }

    /// What proxied sessions are made from, and the ones made so far.
    private struct ProxiedSessions {
        let configuration: URLSessionConfiguration
        let sessionDelegate: (any URLSessionDelegate)?
        var sessions: [ProxyServer: Session] = [:]
    }

    /// The session of requests without a proxy.
    private let direct: Session
    private let proxied: LockedValue<ProxiedSessions>
    /// Body bytes queued before the data task is suspended.
    package let bufferLimit: Int
    /// Where the bridges' idle timers run (the loop's timers; Dispatch without the native stack).
    let eventLoop: EventLoop

    /// - Parameters:
    ///   - configuration: the session's configuration (cookies, proxies, caching).
    ///   - bufferLimit: body bytes queued before the data task is suspended (backpressure).
    ///   - sessionDelegate: answers the session's authentication challenges first (upstream's
    ///     `.sessionDelegate`); only its challenge methods are called. (On Linux they come after
    ///     the challenged response's body; see ``URLSessionTransportDelegate/settling(_:bridge:_:)``.)
    ///   - eventLoop: where the idle timeout's timer runs (URLSession does the transfer itself):
    ///     the loop's timers on the native stack; elsewhere the loop is a stand-in whose timers
    ///     are Dispatch's.
    package init(
        configuration: URLSessionConfiguration = .ephemeral, bufferLimit: Int = 256 * 1024,
        sessionDelegate: (any URLSessionDelegate)? = nil, eventLoop: EventLoop = EventLoopGroup.shared.next()
    ) {
        self.bufferLimit = max(1, bufferLimit)
        self.eventLoop = eventLoop
        self.direct = Self.makeSession(configuration: configuration, sessionDelegate: sessionDelegate, proxy: nil)
        // A copy: later changes to the caller's object do not reach the proxied sessions.
        let template = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        self.proxied = LockedValue(ProxiedSessions(configuration: template, sessionDelegate: sessionDelegate))
    }

    private static func makeSession(
        configuration: URLSessionConfiguration,
        sessionDelegate: (any URLSessionDelegate)?, proxy: ProxyServer?
    ) -> Session {
        let delegate = URLSessionTransportDelegate(sessionDelegate: sessionDelegate, proxy: proxy)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "URLSessionHTTPTransport"
        return Session(
            session: URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue),
            delegate: delegate)
    }

    /// The session for a connection to `url` through `proxy`: the direct one when `proxy`
    /// names no server for `url`, else that server's (made now if it is the first use).
    func session(for url: URL, proxy: ProxyConfiguration) -> Session {
        // A scheme served by a URLProtocol class (`mock://`) goes through no proxy.
        guard Self.isNetworkScheme(url), let server = proxy.server(for: url) else { return self.direct }
        return self.proxied.withLock { state in
            if let session = state.sessions[server] { return session }
            let configuration = (state.configuration.copy() as? URLSessionConfiguration) ?? state.configuration
            configuration.connectionProxyDictionary = URLSessionProxy.connectionProxyDictionary(for: server)
            let session = Self.makeSession(
                configuration: configuration, sessionDelegate: state.sessionDelegate,
                proxy: server)
            state.sessions[server] = session
            return session
        }
    }

    /// The sessions made so far, the direct one first (for tests).
    var sessions: [Session] {
        [self.direct] + self.proxied.withLock { Array($0.sessions.values) }
    }

    deinit {
        // Not `invalidateAndCancel()`: FoundationNetworking traps ("a task that is not in the
        // registry") when a task cancelled by the invalidation reports its failure after the
        // session dropped it, which a per-engine session (SocketIO) hits on every teardown.
        // Every body cancels its task when dropped, so the session still ends promptly.
        self.direct.session.finishTasksAndInvalidate()
        for session in self.proxied.withLock({ $0.sessions.values }) {
            session.session.finishTasksAndInvalidate()
        }
    }

    package func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        var request = request
        var redirectsFollowed = 0
        var mayRetry = true
        while true {
            try Self.validate(request.url, tls: request.tls)
            if Task.isCancelled { throw HTTPClientError(.cancelled, "the task was cancelled") }
            let bridge = URLSessionTaskBridge(
                bufferLimit: self.bufferLimit, idleTimeout: request.idleTimeout, eventLoop: self.eventLoop)
            let session = self.session(for: request.url, proxy: request.proxy)
            let task = session.session.dataTask(with: Self.urlRequest(for: request))
            bridge.attach(task)
            session.delegate.register(bridge, tls: request.tls, for: task)
            let response: HTTPURLResponse
            switch await bridge.start() {
            case .success(let value): response = value
            case .failure(let error):
                bridge.cancel()
                // As the native client does for a pooled connection: a connection the server
                // closed while idle fails before any byte of the response (libcurl reports
                // NSURLErrorNetworkConnectionLost); send the request again, once.
                if mayRetry, error.kind == .network(.connectionReset) {
                    mayRetry = false
                    continue
                }
                throw error
            }
            let headers = Self.headers(of: response, url: request.url)
            if request.maxRedirects > 0, HTTPRedirectPolicy.isRedirect(response.statusCode),
                let next = HTTPRedirectPolicy.redirectedRequest(
                    from: request, status: response.statusCode,
                    location: headers.first(name: "Location"))
            {
                bridge.cancel()
                guard redirectsFollowed < request.maxRedirects else {
                    throw HTTPClientError(.tooManyRedirects, "more than \(request.maxRedirects) redirects")
                }
                redirectsFollowed += 1
                request = next
                continue
            }
            return HTTPClientResponse(
                status: response.statusCode,
                reason: HTTPURLResponse.localizedString(forStatusCode: response.statusCode),
                headers: headers, url: request.url,
                body: HTTPResponseBody(source: URLSessionBodySource(bridge: bridge)))
        }
    }

    /// Whether `url`'s scheme is one URLSession sends over the network itself (http, https,
    /// ws, wss); any other is left to the session's protocol classes.
    static func isNetworkScheme(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "http", "https", "ws", "wss": return true
        default: return false
        }
    }

    /// Refuses a network URL the native client would refuse too (no host, a bad port); a URL
    /// with another scheme (`mock://`, served by a registered `URLProtocol` subclass or one in
    /// the configuration's `protocolClasses`) goes to the session, which fails it with
    /// `unsupportedURL` when no protocol class takes it.
    static func validate(_ url: URL, tls: TLSConfiguration) throws(HTTPClientError) {
        if Self.isNetworkScheme(url) {
            _ = try HTTPOrigin(url: url, tls: tls)
        } else if url.scheme?.isEmpty != false {
            throw HTTPClientError(.invalidURL, "the URL has no scheme")
        }
    }

    /// A ``URLSessionWebSocketTransport`` whose tasks run on this transport's sessions (the
    /// one for ``WebSocketOptions/proxy``); it keeps this transport alive.
    package func makeWebSocketTransport() -> URLSessionWebSocketTransport {
        URLSessionWebSocketTransport { request, options in
            let session = request.url.map { self.session(for: $0, proxy: options.proxy) } ?? self.direct
            let task = session.session.webSocketTask(with: request)
            let handle = SystemWebSocketTask(task)
            session.delegate.register(tls: options.tls, for: task) { [weak handle] in handle?.serverTrustRejected($0) }
            return handle
        }
    }

    /// The response's header fields. URLSession folds repeated fields into one value; a folded
    /// `Set-Cookie` is split again into one field per cookie (`name=value` only), since a
    /// cookie's `Expires` date holds a comma.
    static func headers(of response: HTTPURLResponse, url: URL) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            let name = "\(name)"
            let value = "\(value)"
            if name.lowercased() == "set-cookie" {
                let cookies = FoundationHTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url)
                if cookies.count > 1 {
                    for cookie in cookies { headers.add(name: name, value: "\(cookie.name)=\(cookie.value)") }
                    continue
                }
            }
            headers.add(name: name, value: value)
        }
        return headers
    }

    static func urlRequest(for request: HTTPClientRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        // The bridge's watchdog enforces `idleTimeout`; URLSession's timer (which also runs
        // while the task is suspended for backpressure) only backs it up.
        let seconds = request.idleTimeout.seconds
        urlRequest.timeoutInterval = max(seconds, 0.001) + 24 * 3600
        for (name, value) in request.headers {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        return urlRequest
    }
}

/// The consumer's handle on a task's body: dropping it unread cancels the task.
final class URLSessionBodySource: HTTPBodySource {
    private let bridge: URLSessionTaskBridge

    init(bridge: URLSessionTaskBridge) {
        self.bridge = bridge
    }

    deinit {
        self.bridge.cancel()
    }

    func next() async throws(HTTPClientError) -> [UInt8]? { try await self.bridge.next() }

    func cancel() { self.bridge.cancel() }
}

/// Routes URLSession's delegate callbacks to the bridge of each task.
///
/// The bridges are held weakly: the session holds its delegate until it is invalidated and
/// every task completed, and each task holds its session, so a strong table would tie the
/// bridges, their watchdogs and whatever waits on them into that cycle for as long as
/// FoundationNetworking keeps a task; the exchange (``URLSessionHTTPTransport/execute(_:)``,
/// then the response body) owns its bridge, and a bridge dropped unfinished cancels its task.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct WeakBridge {
        weak var bridge: URLSessionTaskBridge?
    }

    /// What a running task (data or WebSocket) brings to its trust challenge.
    private struct TrustSettings {
        var tls: TLSConfiguration
        /// Told why the server was not trusted, before the task completes cancelled.
        var rejected: @Sendable (URLSessionServerTrust.Failure) -> Void
    }

    private let bridges = LockedValue<[Int: WeakBridge]>([:])
    private let trustSettings = LockedValue<[Int: TrustSettings]>([:])
    /// The caller's delegate, asked first about authentication challenges.
    private let sessionDelegate: (any URLSessionDelegate)?
    /// The proxy of this session's `connectionProxyDictionary` (`nil` for the direct session).
    private let proxy: ProxyServer?

    init(sessionDelegate: (any URLSessionDelegate)? = nil, proxy: ProxyServer? = nil) {
        self.sessionDelegate = sessionDelegate
        self.proxy = proxy
    }

    func register(_ bridge: URLSessionTaskBridge, tls: TLSConfiguration, for task: URLSessionTask) {
        self.bridges.withLock { $0[task.taskIdentifier] = WeakBridge(bridge: bridge) }
        self.register(tls: tls, for: task) { [weak bridge] in bridge?.serverTrustRejected($0) }
    }

    func register(
        tls: TLSConfiguration, for task: URLSessionTask,
        rejected: @escaping @Sendable (URLSessionServerTrust.Failure) -> Void
    ) {
        self.trustSettings.withLock { $0[task.taskIdentifier] = TrustSettings(tls: tls, rejected: rejected) }
    }

    /// Called for every challenge: Apple's URLSession calls this task-level method for the
    /// connection-level ones (server trust, client certificate) too, since this delegate does
    /// not implement the session-level `urlSession(_:didReceive:completionHandler:)`.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let settings = self.trustSettings.withLock { $0[task.taskIdentifier] }
        let completion = Self.settling(
            challenge, bridge: self.bridge(for: task),
            self.answeringProxyChallenge(challenge, completionHandler))
        URLSessionServerTrust.handle(
            challenge, session: session, task: task, tls: settings?.tls ?? TLSConfiguration(),
            delegate: self.sessionDelegate, rejected: { settings?.rejected($0) },
            completionHandler: completion)
    }

    /// On Apple platforms, `completionHandler` with the proxy's ``ProxyServer/credentials`` given
    /// for this session's HTTP proxy's first 407 challenge that nobody else answered (the
    /// `connectionProxyDictionary` has no key for them); elsewhere unchanged.
    /// (FoundationNetworking applies no `connectionProxyDictionary`: its 407s are not our proxy's.)
    private func answeringProxyChallenge(
        _ challenge: URLAuthenticationChallenge,
        _ completionHandler: @escaping URLSessionServerTrust.Completion
    )
        -> URLSessionServerTrust.Completion
    {
        #if canImport(FoundationNetworking)
        return completionHandler
        #else
        let space = challenge.protectionSpace
        guard let proxy = self.proxy, proxy.kind == .httpConnect, let credentials = proxy.credentials,
            space.isProxy(), challenge.previousFailureCount == 0,
            space.host.lowercased() == proxy.host.lowercased()
        else {
            return completionHandler
        }
        return { disposition, credential in
            guard disposition == .performDefaultHandling else { return completionHandler(disposition, credential) }
            completionHandler(
                .useCredential,
                URLCredential(
                    user: credentials.username, password: credentials.password,
                    persistence: .forSession))
        }
        #endif
    }

    /// What a challenge's answer does on swift-corelibs-foundation, which asks about a 401 / 407
    /// only after that response's whole body arrived: a credential retries the request (the
    /// bridge then delivers the retried response); any other answer but a cancellation makes
    /// the challenged response final, as Apple's URLSession does with default handling and no
    /// credential. (FoundationNetworking would stall the task on `.performDefaultHandling`, and
    /// traps on `.useCredential` without a credential.) Elsewhere the answer passes unchanged.
    static func settling(
        _ challenge: URLAuthenticationChallenge, bridge: URLSessionTaskBridge?,
        _ completionHandler: @escaping URLSessionServerTrust.Completion
    ) -> URLSessionServerTrust.Completion {
        #if canImport(FoundationNetworking)
        // (It issues no server-trust challenge: every challenge here is a 401 / 407.)
        return { disposition, credential in
            switch disposition {
            case .useCredential where credential != nil, .cancelAuthenticationChallenge, .rejectProtectionSpace:
                completionHandler(disposition, credential)
            default:
                bridge?.challengedResponseIsFinal()
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        }
        #else
        return completionHandler
        #endif
    }

    /// The bridges of the data tasks that have not completed (for tests).
    var liveBridges: [URLSessionTaskBridge] { self.bridges.withLock { $0.values.compactMap(\.bridge) } }

    private func bridge(for task: URLSessionTask) -> URLSessionTaskBridge? {
        self.bridges.withLock { $0[task.taskIdentifier]?.bridge }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        self.bridge(for: dataTask)?.didReceive(response: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        self.bridge(for: dataTask)?.didReceive(data: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        #if canImport(FoundationNetworking)
        // A barrier against swift-corelibs-foundation's cancel race. `cancel()` checks the task's
        // state at once but reports the cancellation later, in a block on the task's work queue
        // that looks the task up in the session's registry; the session removes a completed task
        // from the registry in a block it queues right after this callback returns. A cancel made
        // just before the task completed on its own could have its block run after that removal,
        // and the lookup traps ("Trying to access a behaviour for a task that in not in the
        // registry", TaskRegistry.swift:118; CI hit it in Socket.IO polling teardowns). The
        // `priority` getter is a `sync` on the task's work queue: the cancel's block, queued
        // before, has run when it returns, so the removal comes after it. (A cancel made from
        // here on finds the task's protocol already released, and reports nothing.) The bridge
        // first stops cancelling the task: a cancel racing this callback either queued its block
        // before (the barrier lets it run) or is not made at all. (The trap still comes now and
        // then, from a cancel whose report FoundationNetworking queues elsewhere; see
        // docs/RELIABILITY.md.)
        self.bridge(for: task)?.taskWillComplete()
        _ = task.priority
        #endif
        self.trustSettings.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
        let bridge = self.bridges.withLock { $0.removeValue(forKey: task.taskIdentifier)?.bridge }
        bridge?.didComplete(error: error)
    }

    /// Redirects are never followed by URLSession: ``URLSessionHTTPTransport/execute(_:)``
    /// follows them itself with ``HTTPRedirectPolicy``, as the native client does
    /// (FoundationNetworking drops the body of a 307 and does not follow 308).
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
