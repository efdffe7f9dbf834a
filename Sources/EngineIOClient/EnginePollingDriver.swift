import EngineIOProtocol
import Foundation
package import RealtimeHTTP
package import RealtimeTime

/// The HTTP long-polling driver (engine.io-protocol v4, "HTTP long-polling"): carries out the
/// machine's `GET` and `POST` actions over the host's HTTP transport and feeds back what they
/// return. Its handles (the requests in flight, the URL prefix and the `t` counter) are the
/// attempt's ``EngineConnectionAttempt/PollingHandles``.
package struct EnginePollingDriver: Sendable {
    package let host: any EngineDriverHost

    package init(host: any EngineDriverHost) {
        self.host = host
    }

    /// Builds a polling request; the `t` parameter defeats caches.
    ///
    /// The URL is the session's polling URL (parsed once per session and sid, see
    /// ``EngineConnectionAttempt/PollingURLPrefix``) with `&sid=…&t=<counter>` appended as text.
    package func request(method: String, sid: String?, body: [UInt8]? = nil, idleTimeout: TimeAmount) -> HTTPClientRequest {
        let sid = sid ?? ""
        typealias Parts = (options: EngineRequestOptions?, prefix: EngineConnectionAttempt.PollingURLPrefix?, counter: Int)
        let parts = self.host.withAttempt { attempt -> Parts in
            attempt.polling.counter += 1
            // Before the first `connect()` there are no attempt options: see below.
            guard let options = attempt.options else { return (nil, nil, attempt.polling.counter) }
            if attempt.polling.urlPrefix?.sid != sid {
                attempt.polling.urlPrefix = EngineConnectionAttempt.PollingURLPrefix(base: options.urlPolling, sid: sid)
            }
            return (options, attempt.polling.urlPrefix, attempt.polling.counter)
        }
        // Not connected yet (tests look at the requests an engine would send): the host's
        // current options, and a prefix made for this request alone.
        let options = parts.options ?? self.host.requestOptions
        let prefix = parts.prefix ?? EngineConnectionAttempt.PollingURLPrefix(base: options.urlPolling, sid: sid)
        let counter = String(parts.counter)
        guard let url = URL(string: prefix.text + counter) else {
            return self.request(method: method, url: options.urlPolling, body: body, idleTimeout: idleTimeout, options: options)
        }
        var request = self.request(method: method, url: url, body: body, idleTimeout: idleTimeout, options: options)
        // The target as built, not read back out of the URL.
        request.target = prefix.target.map { $0 + counter }
        return request
    }

    /// A polling request to `url`, with the attempt's headers, cookies, TLS and proxy.
    private func request(method: String, url: URL, body: [UInt8]?, idleTimeout: TimeAmount, options: EngineRequestOptions) -> HTTPClientRequest {
        var headers = options.headers(
            forWebSocket: false, sticky: self.host.stickyCookies,
            httpKeepsCookies: self.host.transports?.httpKeepsCookies ?? false)
        if body != nil {
            headers.replaceOrAdd(name: "Content-Type", value: "text/plain;charset=UTF-8")
        }
        var request = HTTPClientRequest(
            method: method, url: url, headers: headers, body: body,
            idleTimeout: idleTimeout, tls: options.tls)
        request.proxy = options.proxy
        return request
    }

    /// Runs one request and returns its body; keeps the server's cookies.
    ///
    /// - Throws: `HTTPClientError`, also for a status other than 200.
    func execute(_ request: HTTPClientRequest, transport: any HTTPTransport, limit: Int) async throws(HTTPClientError) -> [UInt8] {
        let response = try await transport.execute(request)
        self.host.stickyCookies.storeCookies(from: response.headers, for: request.url)
        guard response.status == 200 else {
            response.body.cancel()
            throw HTTPClientError(.invalidResponse, "Server responded with status \(response.status)")
        }
        return try await response.body.collect(upTo: limit)
    }

    /// The machine's ``EngineClientAction/sendPollingGET(sid:)``.
    package func startGET(sid: String?, generation: Int) {
        let host = self.host
        guard let http = host.transports?.http else {
            host.drive(generation) { $0.pollingGETFailed(reason: "HTTP long-polling is not available") }
            return
        }
        let request = self.request(
            method: "GET", sid: sid, idleTimeout: host.withAttempt { $0.machine.pollingGETTimeout })
        let task = EngineTask.start(on: host.eventLoop) {
            // Backpressure: no GET while the consumer is too far behind.
            if host.readsPaused { await host.waitUntilReadable() }
            guard !Task.isCancelled else { return }
            do throws(HTTPClientError) {
                let body = try await self.execute(
                    request, transport: http,
                    limit: PollingPayloadDecoder.defaultMaximumLength)
                guard !Task.isCancelled else { return }
                // A server error object instead of a payload (`EngineServerError`): upstream's
                // `checkAndHandleEngineError`, through the host.
                if case .message? = EngineServerError(body: body) {
                    host.deliverServerError(String(decoding: body, as: UTF8.self), generation: generation)
                    return
                }
                host.drive(generation) { $0.pollingGETCompleted(body: body, now: MonotonicInstant.now) }
            } catch {
                guard !Task.isCancelled else { return }
                host.drive(generation) { $0.pollingGETFailed(reason: error.message) }
            }
        }
        self.keep(task, as: \.getTask, generation: generation)
    }

    /// The machine's ``EngineClientAction/sendPollingPOST(sid:body:)``, carrying writes up to
    /// `writeID`.
    package func startPOST(sid: String, body: [UInt8], writeID: Int?, generation: Int) {
        let host = self.host
        guard let http = host.transports?.http else {
            host.drive(generation) { $0.pollingPOSTFailed(reason: "HTTP long-polling is not available") }
            return
        }
        let request = self.request(method: "POST", sid: sid, body: body, idleTimeout: .seconds(20))
        let task = EngineTask.start(on: host.eventLoop) {
            do throws(HTTPClientError) {
                _ = try await self.execute(request, transport: http, limit: 1 << 16)
                guard !Task.isCancelled else { return }
                // Completions first: the next POST (started by the machine below) cannot
                // report its writes before this one's.
                host.sendFinished(writeID, generation: generation)
                host.drive(generation) { $0.pollingPOSTCompleted(now: MonotonicInstant.now) }
            } catch {
                guard !Task.isCancelled else { return }
                host.drive(generation) { $0.pollingPOSTFailed(reason: error.message) }
            }
        }
        self.keep(task, as: \.postTask, generation: generation)
    }

    /// Records `task` as attempt `generation`'s request in flight, or cancels it when that
    /// attempt is gone already.
    private func keep(
        _ task: Task<Void, Never>, as handle: WritableKeyPath<EngineConnectionAttempt.PollingHandles, Task<Void, Never>?>, generation: Int
    ) {
        let kept = self.host.withAttempt { attempt -> Bool in
            guard attempt.generation == generation else { return false }
            attempt.polling[keyPath: handle] = task
            return true
        }
        if !kept { task.cancel() }
    }

    /// The close of a polling attempt that a new attempt replaced while the close was under
    /// way (``EngineClientStateMachine/abandon()``): what the attempt handed over instead of
    /// cancelling it (``EngineConnectionAttempt/reset(options:)``).
    package struct EndingClose: Sendable {
        /// The attempt's `POST` in flight, which carries the close packet or goes before it.
        package var post: Task<Void, Never>?
        /// The attempt's `GET` in flight, cancelled once the close went out.
        package var get: Task<Void, Never>?
        /// The close packet's own `POST`, when it still waited behind `post`.
        package var closePOST: (sid: String, body: [UInt8])?

        /// Takes from `attempt` what its close still needs (the machine's
        /// ``EngineClientStateMachine/abandon()``), so that tearing the attempt down does not
        /// cancel it; `nil` when no client close was under way.
        static func take(from attempt: inout EngineConnectionAttempt) -> EndingClose? {
            let closeOut = attempt.machine.abandon()
            var ending = EndingClose()
            if closeOut.keepsPOSTInFlight { swap(&ending.post, &attempt.polling.postTask) }
            if closeOut.keepsGETInFlight { swap(&ending.get, &attempt.polling.getTask) }
            ending.closePOST = closeOut.closePOST
            return ending.post == nil && ending.get == nil && ending.closePOST == nil ? nil : ending
        }

        /// Lets the ended attempt's close reach the server: its `POST` in flight finishes
        /// instead of being cancelled (unless this task is), then the close packet goes in a
        /// `POST` of its own if it was still waiting (through `driver`, which is `nil` once
        /// the host is gone), and only then is its `GET` cancelled.
        package func finish(driver: @Sendable () -> EnginePollingDriver?) async {
            if let post = self.post {
                await withTaskCancellationHandler {
                    await post.value
                } onCancel: {
                    post.cancel()
                }
            }
            if let closePOST = self.closePOST, !Task.isCancelled {
                await driver()?.sendClosePOST(sid: closePOST.sid, body: closePOST.body)
            }
            self.get?.cancel()
        }
    }

    /// Sends the close packet of an ended attempt (session `sid`) in a `POST` of its own
    /// (``EngineClientStateMachine/abandon()``); the answer is not looked at.
    func sendClosePOST(sid: String, body: [UInt8]) async {
        guard let http = self.host.transports?.http else { return }
        let options = self.host.requestOptions
        let prefix = EngineConnectionAttempt.PollingURLPrefix(base: options.urlPolling, sid: sid)
        let request = self.request(
            method: "POST", url: URL(string: prefix.text + "0") ?? options.urlPolling, body: body,
            idleTimeout: .seconds(20), options: options)
        _ = try? await self.execute(request, transport: http, limit: 1 << 16)
    }
}
