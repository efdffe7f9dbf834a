import EngineIOProtocol
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeIO

/// The transports an engine drives.
struct EngineTransports: Sendable {
    /// `nil` when no HTTP client exists on this platform: polling is then unavailable.
    var http: (any HTTPTransport)?
    var webSocket: any WebSocketTransport
    /// `true` when `http` keeps the server's cookies itself (the native client's cookie store),
    /// so the engine adds them only to the WebSocket upgrade request.
    var httpKeepsCookies: Bool

    /// The native clients of `RealtimeHTTP` over `RealtimeIO`'s connector; each engine gets
    /// its own HTTP client, so cookies never leak between managers.
    static func native() -> EngineTransports {
        let webSocket = WebSocketClient(connector: { endpoint, timeout throws(NetworkError) in
            try await NetworkConnector.connect(to: endpoint, timeout: timeout)
        })
        return EngineTransports(http: HTTPClient(), webSocket: webSocket, httpKeepsCookies: true)
    }
}

extension SocketEngine {
    static let logTypeIO = "SocketEngine"

    // MARK: Task ownership

    /// Keeps `task` with the attempt it belongs to (cancelled when that attempt ends), or
    /// cancels it at once when the attempt is already over.
    func own(_ task: Task<Void, Never>, generation: Int) {
        let owned = self.state.withLock { state -> Bool in
            guard state.session.isCurrent(generation) else { return false }
            state.session.tasks.append(task)
            return true
        }
        if !owned {
            task.cancel()
        }
    }

    func isCurrent(_ generation: Int) -> Bool {
        self.state.withLock { $0.session.isCurrent(generation) }
    }

    // MARK: Ending an attempt

    /// Ends attempt `generation` because of a transport failure: reports `engineDidError` and
    /// `engineDidClose` once. A stale attempt is ignored.
    func fail(generation: Int, reason: String) {
        self.closeOut(generation: generation, reason: reason, isError: true)
    }

    /// Ends attempt `generation` (server close, lost WebSocket, ping timeout) and reports
    /// `engineDidClose(reason:)` once; `isError` also reports `engineDidError(reason:)` first.
    func closeOut(generation: Int, reason: String, isError: Bool = false) {
        let result = self.state.withLock { state -> (EngineSession.Teardown, SocketEngineClient?)? in
            guard state.session.isCurrent(generation) else { return nil }
            let teardown = state.session.close()
            state.closed = true
            state.connected = false
            state.probing = false
            state.sid = ""
            return (teardown, state.client)
        }
        guard let (teardown, client) = result else { return }

        if isError {
            DefaultSocketLogger.Logger.error("\(reason)", type: SocketEngine.logTypeIO)
            client?.engineDidError(reason: reason)
        }
        self.finish(teardown, sendClosePacket: false, polling: false)
        client?.engineDidClose(reason: reason)
    }

    /// Cancels the attempt's tasks and closes its WebSocket; when `sendClosePacket`, tells the
    /// server first (a `1` packet over the WebSocket, or a last POST when polling).
    func finish(_ teardown: EngineSession.Teardown, sendClosePacket: Bool, polling: Bool) {
        for task in teardown.tasks {
            task.cancel()
        }

        let webSocket = teardown.webSocket
        if let webSocket {
            // Bounded: the close handshake waits at most `closeTimeout` for the peer.
            Task {
                if sendClosePacket {
                    try? await webSocket.send(.text("1"))
                }
                await webSocket.close(code: 1000, reason: "")
            }
        } else if sendClosePacket, polling, let http = self.transports?.http {
            let request = self.pollingRequest(method: "POST", body: "1", idleTimeout: .seconds(5))
            // Bounded by the request's idle timeout; the result does not matter.
            Task {
                if let response = try? await http.execute(request) {
                    response.body.cancel()
                }
            }
        }
    }

    // MARK: Heartbeat

    /// Engine.IO v4: the server pings every `pingInterval`; without a ping for
    /// `pingInterval + pingTimeout` the connection is considered lost ("Ping timeout").
    func runHeartbeatWatchdog(generation: Int) async {
        let clock = ContinuousClock()
        while !Task.isCancelled {
            let deadline = self.state.withLock { state -> ContinuousClock.Instant? in
                guard state.session.isCurrent(generation) else { return nil }
                let last = state.session.lastHeartbeat ?? clock.now
                return last + state.session.pingInterval + state.session.pingTimeout
            }
            guard let deadline else { return }
            if clock.now >= deadline {
                self.closeOut(generation: generation, reason: "Ping timeout")
                return
            }
            try? await Task.sleep(until: deadline, clock: clock)
        }
    }

    // MARK: Handshake

    /// Applies the `open` packet's JSON: `sid`, `upgrades`, `pingInterval`, `pingTimeout`,
    /// `maxPayload` (Engine.IO v4 protocol, "handshake").
    ///
    /// - Returns: `false` when the JSON is not a valid handshake.
    func applyHandshake(_ json: Substring, generation: Int) -> Bool {
        guard let handshake = try? EngineHandshake(jsonText: String(json)), !handshake.sid.isEmpty else {
            return false
        }

        return self.state.withLock { state -> Bool in
            guard state.session.isCurrent(generation) else { return false }
            state.sid = handshake.sid
            state.connected = true
            state.closed = false
            state.session.upgrades = handshake.upgrades
            state.session.pingInterval = handshake.pingInterval
            state.session.pingTimeout = handshake.pingTimeout
            state.session.maxPayload = max(1_024, handshake.maxPayload ?? 1_000_000)
            state.session.lastHeartbeat = ContinuousClock().now
            return true
        }
    }

    // MARK: Incoming packets

    /// Handles one engine.io packet in text form (a WebSocket text message or one packet
    /// of a polling payload).
    func handleEngineText(_ text: Substring, generation: Int) {
        guard let type = text.first else { return }
        let body = text.dropFirst()
        let client = self.client

        switch type {
        case "0":
            // A second `open` is ignored.
            break
        case "1":
            self.closeOut(generation: generation, reason: "Socket Disconnected")
        case "2":
            guard body != "probe" else { return }
            self.state.withLock { $0.session.lastHeartbeat = ContinuousClock().now }
            client?.engineDidReceivePing()
            self.write("", withType: .pong, withData: [])
            client?.engineDidSendPong()
        case "3":
            guard body != "probe" else { return }
            client?.engineDidReceivePong()
        case "4":
            client?.parseEngineMessage(String(body))
        case "6":
            break
        case "b":
            guard let data = Data(base64Encoded: String(body)) else {
                DefaultSocketLogger.Logger.error("Invalid base64 binary packet", type: SocketEngine.logTypeIO)
                return
            }
            self.parseEngineData(data)
        default:
            DefaultSocketLogger.Logger.error("Got unknown packet type", type: SocketEngine.logTypeIO)
        }
    }

    // MARK: Requests

    /// Headers for every request: `.extraHeaders`, then `Cookie` from `.cookies` and the
    /// server's sticky cookies (never logged).
    ///
    /// - Parameter forWebSocket: the WebSocket client has no cookie store, so it always gets
    ///   the sticky cookies; an HTTP client that keeps cookies itself does not.
    func requestHeaders(forWebSocket: Bool) -> HTTPHeaders {
        let (extraHeaders, cookies, sticky) = self.state.withLock {
            ($0.extraHeaders, $0.cookies, $0.session.stickyCookies)
        }
        var headers = HTTPHeaders()
        for (name, value) in (extraHeaders ?? [:]).sorted(by: { $0.key < $1.key }) {
            headers.add(name: name, value: value)
        }
        var pairs: [String] = (cookies ?? []).map { "\($0.name)=\($0.value)" }
        let addSticky = forWebSocket || !(self.transports?.httpKeepsCookies ?? false)
        pairs += sticky.filter { _ in addSticky }.filter { cookie in !(cookies ?? []).contains(where: { $0.name == cookie.name }) }
            .map { "\($0.name)=\($0.value)" }
        if !pairs.isEmpty {
            headers.replaceOrAdd(name: "Cookie", value: pairs.joined(separator: "; "))
        }
        return headers
    }

    /// TLS settings: verification on unless `.selfSigned(true)`; `.security` adds trust roots.
    func tlsConfiguration() -> TLSConfiguration {
        let (selfSigned, security) = self.state.withLock { ($0.selfSigned, $0.security) }
        if selfSigned {
            return TLSConfiguration(verification: .none)
        }
        return TLSConfiguration(verification: security?.verifiesHostname == false ? .noHostnameVerification : .fullVerification,
                                additionalTrustRootsPEM: security?.trustedCertificatesPEM ?? [])
    }
}
