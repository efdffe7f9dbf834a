import EngineIOClient
import Foundation
import RealtimeHTTP
import RealtimeTime
import Testing

@testable import SocketIO

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The polling-to-WebSocket upgrade and the heartbeat through the URLSession WebSocket adapter
/// (`URLSessionWebSocketTransport` and its connection), with the `URLSessionWebSocketTask`
/// scripted: FoundationNetworking on Linux cannot open a WebSocket, so this is how the
/// adapter's ordering is proven here. Polling is scripted too (`ScriptedEngineTransports`).
@Suite struct URLSessionWebSocketUpgradeTests {
    /// Records what the engine reports and answers `hello` with a write from inside the delivery.
    final class Client: SocketEngineClient, @unchecked Sendable {
        // `@unchecked Sendable`: `engine` is set once before the engine starts.
        weak var engine: SocketEngine?
        let events = Recorder<String>()

        func parseEngineMessage(_ msg: String) {
            self.events.append("message \(msg)")
            if msg == "hello" {
                self.engine?.write("reply", withType: .message, withData: [])
            }
        }

        func engineDidError(reason: String) { self.events.append("error \(reason)") }
        func engineDidClose(reason: String) { self.events.append("close \(reason)") }
        func engineDidOpen(reason: String) { self.events.append("open") }
        func engineDidReceivePing() { self.events.append("ping") }
        func engineDidReceivePong() {}
        func engineDidSendPing() {}
        func engineDidSendPong() {}
        func parseEngineBinaryData(_ data: Data) {}
        func engineDidWebsocketUpgrade(headers: [String: String]) { self.events.append("upgraded") }
    }

    static func openPacket(pingInterval: Int = 25_000, pingTimeout: Int = 20_000) -> String {
        #"0{"sid":"abc","upgrades":["websocket"],"pingInterval":\#(pingInterval),"pingTimeout":\#(pingTimeout),"maxPayload":1000000}"#
    }

    /// An engine whose WebSocket goes through the URLSession adapter over scripted tasks.
    func makeEngine(
        _ config: SocketIOClientConfiguration = [],
        handshakeStatus: Int = 101
    ) -> (SocketEngine, Client, ScriptedEngineTransports, ScriptedWebSocketTasks) {
        let polling = ScriptedEngineTransports()
        let tasks = ScriptedWebSocketTasks(handshakeStatus: handshakeStatus)
        let webSocket = URLSessionWebSocketTransport { request, _ in tasks.make(request) }
        let transports = EngineTransports(http: polling, webSocket: webSocket, httpKeepsCookies: false)
        let client = Client()
        let engine = SocketEngine(
            client: client, url: URL(string: "http://example.invalid/")!,
            config: config, transports: transports)
        client.engine = engine
        return (engine, client, polling, tasks)
    }

    /// Polls `condition` for up to five seconds.
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return condition()
    }

    @Test func theUpgradeKeepsItsOrderThroughTheAdapter() async throws {
        let cookie = try #require(HTTPCookie(properties: [.name: "session", .value: "s1", .domain: "example.invalid", .path: "/"]))
        let (engine, client, polling, tasks) = self.makeEngine([.cookies([cookie]), .extraHeaders(["X-App": "demo"])])
        defer { engine.disconnect(reason: "test over") }

        engine.connect()
        polling.answerGET(Self.openPacket())
        #expect(await self.eventually { tasks.last?.sent == ["2probe"] && polling.waitingGETs == 1 })
        let task = try #require(tasks.last)

        // The upgrade request the adapter gave URLSession: the session's WebSocket URL and the
        // engine's headers and cookies.
        let request = try #require(task.request)
        let url = try #require(request.url?.absoluteString)
        #expect(url.hasPrefix("ws://example.invalid/socket.io/") || url.hasPrefix("ws://example.invalid/engine.io/"))
        #expect(url.contains("transport=websocket") && url.contains("sid=abc") && url.contains("EIO=4"))
        #expect(request.value(forHTTPHeaderField: "Cookie") == "session=s1")
        #expect(request.value(forHTTPHeaderField: "X-App") == "demo")
        #expect(task.didResume)

        // `3probe` pauses polling; the GET in flight ends the pause when it returns with
        // `hello`, which the client answers while the engine sends `5`.
        task.push(.string("3probe"))
        #expect(await self.eventually { engine.state.withLock { $0.attempt.machine.isPausedForUpgrade } })
        polling.answerGET("4hello")
        #expect(await self.eventually { task.sent.count >= 3 })
        #expect(task.sent == ["2probe", "5", "4reply"])
        #expect(client.events.values.prefix(3) == ["open", "message hello", "upgraded"])
        #expect(engine.wsConnected)

        // After the upgrade, writes go through the adapter in order.
        for index in 0..<20 {
            engine.write("m\(index)", withType: .message, withData: [])
        }
        #expect(await self.eventually { task.sent.count >= 23 })
        #expect(Array(task.sent.dropFirst(3)) == (0..<20).map { "4m\($0)" })
    }

    @Test func heartbeatAndPingTimeoutThroughTheAdapter() async throws {
        let (engine, client, polling, tasks) = self.makeEngine()
        defer { engine.disconnect(reason: "test over") }

        engine.connect()
        // 1.5 s + 1.5 s: the steps below must all happen before the ping timeout, also under load.
        polling.answerGET(Self.openPacket(pingInterval: 1500, pingTimeout: 1500))
        #expect(await self.eventually { tasks.last?.sent == ["2probe"] })
        let task = try #require(tasks.last)
        task.push(.string("3probe"))
        #expect(await self.eventually { engine.state.withLock { $0.attempt.machine.isPausedForUpgrade } })
        polling.answerGET("6")
        #expect(await self.eventually { task.sent == ["2probe", "5"] })

        // The server's ping over the WebSocket is answered over it and reported.
        task.push(.string("2"))
        #expect(await self.eventually { task.sent == ["2probe", "5", "3"] })
        #expect(await client.events.wait { $0.contains("ping") })

        // No further ping: after pingInterval + pingTimeout the engine closes, and the adapter
        // ends the task with a close code.
        #expect(await client.events.wait(timeout: 10) { $0.contains("close Ping timeout") })
        #expect(await self.eventually { task.cancelledWith != nil })
    }

    @Test func aRefusedUpgradeKeepsPolling() async throws {
        let (engine, client, polling, tasks) = self.makeEngine(handshakeStatus: 403)
        defer { engine.disconnect(reason: "test over") }

        engine.connect()
        polling.answerGET(Self.openPacket())
        #expect(await self.eventually { tasks.count == 1 && tasks.last?.didCancel == true })
        // The probe failed: the session goes on over polling and delivers what the GET carries.
        #expect(await self.eventually { polling.waitingGETs == 1 })
        polling.answerGET("4still-polling")
        #expect(await client.events.wait { $0.contains("message still-polling") })
        #expect(!client.events.values.contains("upgraded"))
        #expect(engine.polling)
    }

    /// `.compress` over URLSession: the engine asks for compression, but `URLSessionWebSocketTask`
    /// has no setting for it, so the upgrade request offers no extension and the upgrade
    /// proceeds uncompressed (as `.compress`'s doc says).
    @Test func compressIsNotOfferedThroughTheAdapter() async throws {
        let polling = ScriptedEngineTransports()
        let tasks = ScriptedWebSocketTasks(handshakeStatus: 101)
        let asked = Recorder<Bool>()
        let webSocket = URLSessionWebSocketTransport { request, options in
            asked.append(options.enableCompression)
            return tasks.make(request)
        }
        let client = Client()
        let engine = SocketEngine(
            client: client, url: URL(string: "http://example.invalid/")!, config: [.compress],
            transports: EngineTransports(http: polling, webSocket: webSocket, httpKeepsCookies: false))
        client.engine = engine
        defer { engine.disconnect(reason: "test over") }

        engine.connect()
        polling.answerGET(Self.openPacket())
        #expect(await self.eventually { tasks.last?.sent == ["2probe"] })
        let task = try #require(tasks.last)
        #expect(asked.values == [true])
        let request = try #require(task.request)
        #expect(request.value(forHTTPHeaderField: "Sec-WebSocket-Extensions") == nil)
        task.push(.string("3probe"))
        #expect(await self.eventually { engine.state.withLock { $0.attempt.machine.isPausedForUpgrade } })
        polling.answerGET("6")
        #expect(await self.eventually { engine.wsConnected })
        #expect(await self.eventually { task.sent == ["2probe", "5"] }, "sent: \(task.sent)")
    }
}

/// Makes the scripted tasks, in order.
final class ScriptedWebSocketTasks: @unchecked Sendable {
    // `@unchecked Sendable`: `tasks` is behind `lock`.
    private let lock = NSLock()
    private var tasks: [ScriptedWebSocketTask] = []
    let handshakeStatus: Int

    init(handshakeStatus: Int) {
        self.handshakeStatus = handshakeStatus
    }

    func make(_ request: URLRequest) -> ScriptedWebSocketTask {
        let task = ScriptedWebSocketTask(request: request, handshakeStatus: self.handshakeStatus)
        self.lock.withLock { self.tasks.append(task) }
        return task
    }

    var last: ScriptedWebSocketTask? { self.lock.withLock { self.tasks.last } }
    var count: Int { self.lock.withLock { self.tasks.count } }
}

/// A `URLSessionWebSocketTask` as the adapter sees it: the handshake answers the first ping
/// (or fails with the given status), sends are recorded, and receives return what the test
/// pushes. Cancelling fails a pending receive as URLSession does.
final class ScriptedWebSocketTask: URLSessionWebSocketTaskHandle, @unchecked Sendable {
    // `@unchecked Sendable`: all state is behind `lock`.
    private let lock = NSLock()
    private var _sent: [String] = []
    private var inbox: [URLSessionWebSocketTask.Message] = []
    private var receiver: CheckedContinuation<URLSessionWebSocketTask.Message, any Error>?
    private var _closeCode: URLSessionWebSocketTask.CloseCode = .invalid
    private var _cancelledWith: URLSessionWebSocketTask.CloseCode?
    private var _didResume = false
    private var _didCancel = false
    private var _response: URLResponse?
    let request: URLRequest?
    let handshakeStatus: Int

    init(request: URLRequest, handshakeStatus: Int) {
        self.request = request
        self.handshakeStatus = handshakeStatus
    }

    var sent: [String] { self.lock.withLock { self._sent } }
    var didResume: Bool { self.lock.withLock { self._didResume } }
    var didCancel: Bool { self.lock.withLock { self._didCancel } }
    var cancelledWith: URLSessionWebSocketTask.CloseCode? { self.lock.withLock { self._cancelledWith } }

    func push(_ message: URLSessionWebSocketTask.Message) {
        let receiver = self.lock.withLock { () -> CheckedContinuation<URLSessionWebSocketTask.Message, any Error>? in
            guard let receiver = self.receiver else {
                self.inbox.append(message)
                return nil
            }
            self.receiver = nil
            return receiver
        }
        receiver?.resume(returning: message)
    }

    var response: URLResponse? { self.lock.withLock { self._response } }
    var closeCode: URLSessionWebSocketTask.CloseCode { self.lock.withLock { self._closeCode } }
    var closeReason: Data? { nil }
    func setMaximumMessageSize(_ size: Int) {}
    func resume() { self.lock.withLock { self._didResume = true } }

    func cancel() {
        self.finish(closeCode: nil)
    }

    func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        self.finish(closeCode: closeCode)
    }

    private func finish(closeCode: URLSessionWebSocketTask.CloseCode?) {
        let receiver = self.lock.withLock { () -> CheckedContinuation<URLSessionWebSocketTask.Message, any Error>? in
            self._didCancel = true
            if let closeCode {
                self._cancelledWith = closeCode
                self._closeCode = closeCode
            }
            defer { self.receiver = nil }
            return self.receiver
        }
        receiver?.resume(throwing: URLError(.cancelled))
    }

    func send(_ message: URLSessionWebSocketTask.Message) async throws {
        guard case .string(let text) = message else { return }
        try self.lock.withLock {
            guard !self._didCancel else { throw URLError(.cancelled) }
            self._sent.append(text)
        }
    }

    func receive() async throws -> URLSessionWebSocketTask.Message {
        try await withCheckedThrowingContinuation { continuation in
            enum Ready {
                case message(URLSessionWebSocketTask.Message)
                case cancelled, wait
            }
            let ready = self.lock.withLock { () -> Ready in
                if self._didCancel { return .cancelled }
                guard self.inbox.isEmpty else { return .message(self.inbox.removeFirst()) }
                self.receiver = continuation
                return .wait
            }
            switch ready {
            case .message(let message): continuation.resume(returning: message)
            case .cancelled: continuation.resume(throwing: URLError(.cancelled))
            case .wait: break
            }
        }
    }

    func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let url = self.request?.url ?? URL(string: "ws://example.invalid/")!
        let response = HTTPURLResponse(
            url: url, statusCode: self.handshakeStatus, httpVersion: "HTTP/1.1",
            headerFields: self.handshakeStatus == 101 ? ["Upgrade": "websocket"] : [:])
        self.lock.withLock { self._response = response }
        pongReceiveHandler(self.handshakeStatus == 101 ? nil : URLError(.badServerResponse))
    }
}
