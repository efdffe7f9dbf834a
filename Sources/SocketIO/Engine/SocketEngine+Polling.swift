import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeTime

/// HTTP long-polling (engine.io-protocol v4, "HTTP long-polling"): the GET and POST requests
/// the machine asks for.
extension SocketEngine {
    /// Builds a polling request; the `t` parameter defeats caches.
    ///
    /// The URL is the session's polling URL (parsed once per session and sid, see
    /// ``EngineConnectionAttempt/PollingURLPrefix``) with `&sid=…&t=<counter>` appended as text.
    func pollingRequest(method: String, sid: String?, body: [UInt8]? = nil, idleTimeout: TimeAmount) -> HTTPClientRequest {
        let (base, prefix, counter) = self.state.withLock { state -> (URL, String, Int) in
            state.attempt.polling.counter += 1
            let sid = sid ?? ""
            let base = state.requestOptions.urlPolling
            if state.attempt.polling.urlPrefix?.sid != sid {
                state.attempt.polling.urlPrefix = EngineConnectionAttempt.PollingURLPrefix(base: base, sid: sid)
            }
            return (base, state.attempt.polling.urlPrefix?.text ?? "", state.attempt.polling.counter)
        }
        return self.pollingRequest(
            method: method, url: URL(string: prefix + String(counter)) ?? base, body: body, idleTimeout: idleTimeout)
    }

    /// A polling request to `url`, with the engine's headers, cookies, TLS and proxy.
    private func pollingRequest(method: String, url: URL, body: [UInt8]?, idleTimeout: TimeAmount) -> HTTPClientRequest {
        var headers = self.requestHeaders(forWebSocket: false)
        if body != nil {
            headers.replaceOrAdd(name: "Content-Type", value: "text/plain;charset=UTF-8")
        }
        var request = HTTPClientRequest(
            method: method, url: url, headers: headers, body: body,
            idleTimeout: idleTimeout, tls: self.tlsConfiguration())
        request.proxy = self.proxyConfiguration()
        return request
    }

    /// Runs one request and returns its body; keeps the server's cookies.
    ///
    /// - Throws: `HTTPClientError`, also for a status other than 200.
    func executePolling(_ request: HTTPClientRequest, transport: any HTTPTransport, limit: Int) async throws(HTTPClientError) -> [UInt8] {
        let response = try await transport.execute(request)
        self.stickyCookies.storeCookies(from: response.headers, for: request.url)
        guard response.status == 200 else {
            response.body.cancel()
            throw HTTPClientError(.invalidResponse, "Server responded with status \(response.status)")
        }
        return try await response.body.collect(upTo: limit)
    }

    func startPollingGET(sid: String?, generation: Int) {
        guard let http = self.transports?.http else {
            self.drive(generation) { $0.pollingGETFailed(reason: "HTTP long-polling is not available") }
            return
        }
        let request = self.pollingRequest(
            method: "GET", sid: sid, idleTimeout: self.state.withLock { $0.attempt.machine.pollingGETTimeout })
        let task = SocketEngine.engineTask {
            // Backpressure: no GET while the manager's handleQueue is too far behind.
            await self.readGate.waitUntilOpen()
            guard !Task.isCancelled else { return }
            do throws(HTTPClientError) {
                let body = try await self.executePolling(
                    request, transport: http,
                    limit: PollingPayloadDecoder.defaultMaximumLength)
                guard !Task.isCancelled else { return }
                // A server error object instead of a payload (`EngineServerError`): upstream's
                // `checkAndHandleEngineError`, through `parseEngineMessage(_:)`.
                if case .message? = EngineServerError(body: body) {
                    self.deliverServerError(String(decoding: body, as: UTF8.self), generation: generation)
                    return
                }
                self.drive(generation) { $0.pollingGETCompleted(body: body, now: MonotonicInstant.now) }
            } catch {
                guard !Task.isCancelled else { return }
                self.drive(generation) { $0.pollingGETFailed(reason: error.message) }
            }
        }
        self.state.withLock { state in
            if state.attempt.generation == generation {
                state.attempt.polling.getTask = task
            } else {
                task.cancel()
            }
        }
    }

    /// Sends the close packet of an ended attempt (session `sid`) in a `POST` of its own
    /// (``EngineClientStateMachine/abandon()``); the answer is not looked at.
    func sendClosePOST(sid: String, body: [UInt8]) async {
        guard let http = self.transports?.http else { return }
        let base = self.state.withLock { $0.requestOptions.urlPolling }
        let prefix = EngineConnectionAttempt.PollingURLPrefix(base: base, sid: sid)
        let request = self.pollingRequest(method: "POST", url: URL(string: prefix.text + "0") ?? base, body: body, idleTimeout: .seconds(20))
        _ = try? await self.executePolling(request, transport: http, limit: 1 << 16)
    }

    func startPollingPOST(sid: String, body: [UInt8], writeID: Int?, generation: Int) {
        guard let http = self.transports?.http else {
            self.drive(generation) { $0.pollingPOSTFailed(reason: "HTTP long-polling is not available") }
            return
        }
        let request = self.pollingRequest(method: "POST", sid: sid, body: body, idleTimeout: .seconds(20))
        let task = SocketEngine.engineTask {
            do throws(HTTPClientError) {
                _ = try await self.executePolling(request, transport: http, limit: 1 << 16)
                guard !Task.isCancelled else { return }
                // Completions first: the next POST (started by the machine below) cannot
                // report its writes before this one's.
                self.sendFinished(writeID, generation: generation)
                self.drive(generation) { $0.pollingPOSTCompleted(now: MonotonicInstant.now) }
            } catch {
                guard !Task.isCancelled else { return }
                self.drive(generation) { $0.pollingPOSTFailed(reason: error.message) }
            }
        }
        self.state.withLock { state in
            if state.attempt.generation == generation {
                state.attempt.polling.postTask = task
            } else {
                task.cancel()
            }
        }
    }
}
