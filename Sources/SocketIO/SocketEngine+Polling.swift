import Foundation
import HTTP1Codec
import RealtimeHTTP

/// HTTP long-polling (Engine.IO v4 protocol, "HTTP long-polling"): the handshake GET, the
/// poll loop, and batched POSTs whose packets are separated by the record separator U+001E.
extension SocketEngine {
    static let recordSeparator: Character = "\u{1E}"

    /// Builds a polling request on the session URL; the `t` parameter defeats caches.
    func pollingRequest(method: String, body: String? = nil, idleTimeout: Duration, withSid: Bool = true) -> HTTPClientRequest {
        let (base, sid, counter) = self.state.withLock { state -> (URL, String, Int) in
            state.session.pollCounter += 1
            return (state.urlPolling, state.sid, state.session.pollCounter)
        }
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
        var items = components.queryItems ?? []
        items.append(URLQueryItem(name: "t", value: "\(counter)"))
        if withSid && !sid.isEmpty {
            items.append(URLQueryItem(name: "sid", value: sid))
        }
        components.queryItems = items

        var headers = self.requestHeaders(forWebSocket: false)
        if body != nil {
            headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=UTF-8")
        }
        return HTTPClientRequest(method: method,
                                 url: components.url ?? base,
                                 headers: headers,
                                 body: body.map { Array($0.utf8) },
                                 idleTimeout: idleTimeout,
                                 tls: self.tlsConfiguration())
    }

    /// Runs one request and returns its body text; keeps the server's cookies.
    func executePolling(_ request: HTTPClientRequest, transport: any HTTPTransport, limit: Int) async throws(HTTPClientError) -> String {
        let response = try await transport.execute(request)
        self.state.withLock { $0.session.storeCookies(response.headers.values(name: "Set-Cookie")) }
        guard response.status == 200 else {
            response.body.cancel()
            throw HTTPClientError(.invalidResponse, "Server responded with status \(response.status)")
        }
        let bytes = try await response.body.collect(upTo: limit)
        return String(decoding: bytes, as: UTF8.self)
    }

    var pollIdleTimeout: Duration {
        self.state.withLock { $0.session.pingInterval + $0.session.pingTimeout + .seconds(5) }
    }

    var payloadLimit: Int {
        self.state.withLock { max($0.session.maxPayload * 2, 1 << 20) }
    }

    /// Handshake over polling, then the poll loop and (unless `.forcePolling`) the upgrade.
    func openPolling(generation: Int, transport: any HTTPTransport) async {
        let payload: String
        do {
            payload = try await self.executePolling(self.pollingRequest(method: "GET", idleTimeout: .seconds(20), withSid: false),
                                                    transport: transport, limit: 1 << 20)
        } catch {
            self.fail(generation: generation, reason: error.message)
            return
        }

        var packets = payload.split(separator: Self.recordSeparator, omittingEmptySubsequences: true)
        guard let first = packets.first, first.first == "0",
              self.applyHandshake(first.dropFirst(), generation: generation) else {
            self.fail(generation: generation, reason: "Invalid handshake")
            return
        }
        packets.removeFirst()

        DefaultSocketLogger.Logger.log("Handshake complete over polling", type: SocketEngine.logTypeIO)
        let client = self.client
        client?.engineDidOpen(reason: "Connect")
        for packet in packets {
            self.handleEngineText(packet, generation: generation)
        }

        let watchdog = Task { await self.runHeartbeatWatchdog(generation: generation) }
        self.own(watchdog, generation: generation)

        let pollTask = Task { await self.runPollLoop(generation: generation, transport: transport) }
        self.own(pollTask, generation: generation)

        let upgradeAllowed = self.state.withLock { !$0.forcePolling && $0.session.upgrades.contains("websocket") }
        if upgradeAllowed, let webSocket = self.transports?.webSocket {
            let upgradeTask = Task {
                await self.upgrade(generation: generation, transport: webSocket, pollTask: pollTask)
            }
            self.own(upgradeTask, generation: generation)
        }
    }

    /// GETs until the engine upgrades or closes; each payload is handled in order.
    func runPollLoop(generation: Int, transport: any HTTPTransport) async {
        while !Task.isCancelled {
            let stillPolling = self.state.withLock { $0.session.isCurrent(generation) && $0.polling }
            guard stillPolling else { return }

            let payload: String
            do {
                payload = try await self.executePolling(self.pollingRequest(method: "GET", idleTimeout: self.pollIdleTimeout),
                                                        transport: transport, limit: self.payloadLimit)
            } catch {
                let upgraded = self.state.withLock { !$0.polling }
                if !upgraded {
                    self.fail(generation: generation, reason: error.message)
                }
                return
            }

            for packet in payload.split(separator: Self.recordSeparator, omittingEmptySubsequences: true) {
                guard self.isCurrent(generation) else { return }
                self.handleEngineText(packet, generation: generation)
            }
        }
    }

    // MARK: Writing

    /// Starts the writer unless one runs, nothing waits, or an upgrade is switching transports.
    func kickWriter() {
        let generation = self.state.withLock { state -> Int? in
            guard state.session.isCurrent(state.session.generation), !state.session.writerActive,
                  !state.session.outgoing.isEmpty, !state.probing else { return nil }
            guard state.polling || state.session.webSocket != nil else { return nil }
            state.session.writerActive = true
            return state.session.generation
        }
        guard let generation else { return }

        // Owned by the attempt: cancelled when it ends; it exits once the queue is empty.
        let task = Task { await self.drainWrites(generation: generation) }
        self.own(task, generation: generation)
    }

    /// Writes queued packets in order: batched POSTs while polling, frames once upgraded.
    func drainWrites(generation: Int) async {
        enum Route { case polling(any HTTPTransport), webSocket(any WebSocketConnection) }
        while !Task.isCancelled {
            let next = self.state.withLock { state -> ([EngineSession.PendingWrite], Route)? in
                guard state.session.isCurrent(generation), !state.probing, !state.session.outgoing.isEmpty else {
                    if state.session.generation == generation {
                        state.session.writerActive = false
                    }
                    return nil
                }
                let route: Route
                if state.polling, let http = self.transports?.http {
                    route = .polling(http)
                } else if let webSocket = state.session.webSocket {
                    route = .webSocket(webSocket)
                } else {
                    state.session.writerActive = false
                    return nil
                }
                let polling: Bool
                if case .polling = route { polling = true } else { polling = false }
                return (state.session.takeBatch(polling: polling), route)
            }
            guard let (batch, route) = next else { return }

            do {
                switch route {
                case let .polling(http):
                    let body = batch.flatMap(\.frames).map(\.pollingText).joined(separator: String(Self.recordSeparator))
                    _ = try await self.executePolling(self.pollingRequest(method: "POST", body: body, idleTimeout: .seconds(20)),
                                                      transport: http, limit: 1 << 16)
                case let .webSocket(webSocket):
                    for write in batch {
                        for frame in write.frames {
                            switch frame {
                            case let .text(text): try await webSocket.send(.text(text))
                            case let .binary(data): try await webSocket.send(.binary(Array(data)))
                            }
                        }
                    }
                }
            } catch let error as HTTPClientError {
                self.fail(generation: generation, reason: error.message)
                return
            } catch let error as WebSocketError {
                self.closeOut(generation: generation, reason: error.message)
                return
            } catch {
                self.fail(generation: generation, reason: "\(error)")
                return
            }

            for write in batch {
                write.completion?.value()
            }
        }
        self.state.withLock { state in
            if state.session.generation == generation {
                state.session.writerActive = false
            }
        }
    }
}
