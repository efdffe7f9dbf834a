import EngineIOClient
import Foundation
import HTTP1Codec
import RealtimeHTTP
import RealtimeSync

@testable import SocketIO

/// In-memory polling and WebSocket transports for engine unit tests that need a precise
/// interleaving (a real server cannot be told to answer at one exact moment). The test hands
/// out each polling `GET` body and each WebSocket message itself; `POST`s are answered `ok`,
/// and WebSocket sends are recorded in order. Loopback tests use real servers.
final class ScriptedEngineTransports: HTTPTransport, WebSocketTransport, @unchecked Sendable {
    // `@unchecked Sendable`: all state is behind `state`, one LockedValue.
    private struct State {
        /// Waiting `GET`s by id; a cancelled one is removed and resumed with `nil`.
        var getWaiters: [(id: Int, continuation: CheckedContinuation<[UInt8]?, Never>)] = []
        var nextWaiterID = 0
        var getBodies: [[UInt8]] = []
        var connection: ScriptedWebSocketConnection?
        /// While set, `POST`s wait for ``releasePOSTs()`` (or their cancellation).
        var holdsPOSTs = false
        var postWaiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var deliveredPOSTs: [String] = []
        var cancelledPOSTs: [String] = []
        /// Every request's URL and the target it carried, in order.
        var requests: [(url: URL, target: String?)] = []
    }

    private let state = LockedValue(State())

    var transports: EngineTransports {
        EngineTransports(http: self, webSocket: self, httpKeepsCookies: true)
    }

    var webSocket: ScriptedWebSocketConnection? { self.state.withLock { $0.connection } }

    /// Answers the oldest waiting `GET` (or the next one to come) with `body`.
    func answerGET(_ body: String) {
        let waiter = self.state.withLock { state -> CheckedContinuation<[UInt8]?, Never>? in
            guard !state.getWaiters.isEmpty else {
                state.getBodies.append(Array(body.utf8))
                return nil
            }
            return state.getWaiters.removeFirst().continuation
        }
        waiter?.resume(returning: Array(body.utf8))
    }

    var waitingGETs: Int { self.state.withLock { $0.getWaiters.count } }

    /// From now on each `POST` waits until ``releasePOSTs()``, or until its task is cancelled
    /// (then it counts as cancelled: the server never saw it).
    func holdPOSTs() { self.state.withLock { $0.holdsPOSTs = true } }

    /// Answers the `POST`s held so far, and lets later ones through.
    func releasePOSTs() {
        let waiters = self.state.withLock { state in
            state.holdsPOSTs = false
            defer { state.postWaiters = [] }
            return state.postWaiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: true) }
    }

    var heldPOSTs: Int { self.state.withLock { $0.postWaiters.count } }
    /// Bodies of the `POST`s answered, in order.
    var deliveredPOSTs: [String] { self.state.withLock { $0.deliveredPOSTs } }
    /// Bodies of the held `POST`s whose task was cancelled.
    var cancelledPOSTs: [String] { self.state.withLock { $0.cancelledPOSTs } }

    /// Holds a `POST` while ``holdPOSTs()`` is on; `false` if its task was cancelled meanwhile.
    private func passPOST() async -> Bool {
        let id = self.state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = self.state.withLock { state -> Bool? in
                    guard state.holdsPOSTs else { return true }
                    if Task.isCancelled { return false }
                    state.postWaiters.append((id: id, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.postWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.postWaiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Every request's URL and the target it carried (`HTTPClientRequest.target`), in order.
    var requests: [(url: URL, target: String?)] { self.state.withLock { $0.requests } }

    func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        self.state.withLock { $0.requests.append((request.url, request.target)) }
        let body: [UInt8]
        if request.method == "POST" {
            let text = String(decoding: request.body ?? [], as: UTF8.self)
            guard await self.passPOST() else {
                self.state.withLock { $0.cancelledPOSTs.append(text) }
                throw HTTPClientError(.cancelled, "the task was cancelled")
            }
            self.state.withLock { $0.deliveredPOSTs.append(text) }
            body = Array("ok".utf8)
        } else {
            // A `GET` the engine cancels (disconnect, new attempt) ends, as on a real transport:
            // a waiter left behind kept the engine's polling task, hence the engine, alive
            // (LeakSanitizer: URLSessionWebSocketUpgradeTests.aRefusedUpgradeKeepsPolling).
            let id = self.state.withLock { state in
                defer { state.nextWaiterID += 1 }
                return state.nextWaiterID
            }
            let answer = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
                    enum Next {
                        case ready([UInt8])
                        case cancelled, wait
                    }
                    let next = self.state.withLock { state -> Next in
                        if !state.getBodies.isEmpty { return .ready(state.getBodies.removeFirst()) }
                        if Task.isCancelled { return .cancelled }
                        state.getWaiters.append((id: id, continuation: continuation))
                        return .wait
                    }
                    switch next {
                    case .ready(let bytes): continuation.resume(returning: bytes)
                    case .cancelled: continuation.resume(returning: nil)
                    case .wait: break
                    }
                }
            } onCancel: {
                let waiter = self.state.withLock { state -> CheckedContinuation<[UInt8]?, Never>? in
                    guard let index = state.getWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.getWaiters.remove(at: index).continuation
                }
                waiter?.resume(returning: nil)
            }
            guard let answer else { throw HTTPClientError(.cancelled, "the task was cancelled") }
            body = answer
        }
        return HTTPClientResponse(
            status: 200, reason: "OK", headers: [:], url: request.url,
            body: HTTPResponseBody(source: ScriptedEngineBody(body)))
    }

    func connect(to url: URL, options: WebSocketOptions) async throws(WebSocketError) -> any WebSocketConnection {
        let connection = ScriptedWebSocketConnection()
        self.state.withLock { $0.connection = connection }
        return connection
    }
}

/// A body delivered in one chunk.
final class ScriptedEngineBody: HTTPBodySource, @unchecked Sendable {
    // `@unchecked Sendable`: `bytes` is behind `lock`.
    private let lock = NSLock()
    private var bytes: [UInt8]?

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func next() async throws(HTTPClientError) -> [UInt8]? {
        self.lock.withLock {
            defer { self.bytes = nil }
            return self.bytes
        }
    }

    func cancel() { self.lock.withLock { self.bytes = nil } }
}

/// A WebSocket that records what is sent and receives what the test pushes.
final class ScriptedWebSocketConnection: WebSocketConnection, @unchecked Sendable {
    // `@unchecked Sendable`: all state is behind `lock`.
    private let lock = NSLock()
    private var _sent: [String] = []
    private var inbox: [WebSocketMessage?] = []
    private var receiver: CheckedContinuation<WebSocketMessage?, Never>?

    let responseHeaders: HTTPHeaders = [:]
    var closeStatus: (code: UInt16, reason: String)? { nil }

    /// Text messages sent so far, in order.
    var sent: [String] { self.lock.withLock { self._sent } }

    func push(_ message: WebSocketMessage?) {
        let receiver = self.lock.withLock { () -> CheckedContinuation<WebSocketMessage?, Never>? in
            guard let receiver = self.receiver else {
                self.inbox.append(message)
                return nil
            }
            self.receiver = nil
            return receiver
        }
        receiver?.resume(returning: message)
    }

    func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        guard case .text(let text) = message else { return }
        self.lock.withLock { self._sent.append(text) }
    }

    func receive() async throws(WebSocketError) -> WebSocketMessage? {
        await withCheckedContinuation { continuation in
            let ready = self.lock.withLock { () -> WebSocketMessage?? in
                guard self.inbox.isEmpty else { return .some(self.inbox.removeFirst()) }
                self.receiver = continuation
                return .none
            }
            if case .some(let message) = ready { continuation.resume(returning: message) }
        }
    }

    func close(code: UInt16, reason: String) async {
        self.push(nil)
    }
}
