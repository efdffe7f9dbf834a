import Dispatch
import EngineIOClient
import Foundation
import RealtimeTime

@testable import SocketIO

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `SocketEngineSpec` that records writes and opens on `connect()`: drives the manager and
/// client logic through the public engine boundary without a network.
final class TestEngine: NSObject, SocketEngineSpec, @unchecked Sendable {
    // `@unchecked Sendable`: mutable fields are behind `lock`.
    private let lock = NSLock()
    private var _client: SocketEngineClient?
    private var _writes: [(String, SocketEnginePacketType, [Data])] = []
    private var _connectCount = 0
    private var _disconnectReasons: [String] = []
    var opensOnConnect = true

    weak var client: SocketEngineClient? {
        get { lock.withLock { _client } }
        set { lock.withLock { _client = newValue } }
    }

    /// Drops the client (end of a test, ``TestEngineScope``). The client is released after the
    /// lock: its deinit may call back into this engine.
    func dropClient() {
        let client = lock.withLock { () -> SocketEngineClient? in
            defer { _client = nil }
            return _client
        }
        withExtendedLifetime(client) {}
    }

    var writes: [String] { lock.withLock { _writes.map { $0.0 } } }
    var binaryWrites: [[Data]] { lock.withLock { _writes.map { $0.2 } } }
    var connectCount: Int { lock.withLock { _connectCount } }
    var disconnectReasons: [String] { lock.withLock { _disconnectReasons } }

    let closed = false
    let compress = false
    var connected: Bool { true }
    var connectParams: [String: Any]?
    let cookies: [HTTPCookie]? = nil
    let engineQueue = DispatchQueue(label: "test-engine")
    var extraHeaders: [String: String]?
    let fastUpgrade = false
    let forcePolling = false
    let forceWebsockets = false
    let polling = false
    let probing = false
    let sid = "engine-sid"
    let socketPath = "/socket.io/"
    let urlPolling = URL(string: "http://localhost/")!
    let urlWebSocket = URL(string: "ws://localhost/")!
    let version = SocketIOVersion.three
    let websocket = true

    init(client: SocketEngineClient) {
        self._client = client
        super.init()
        TestEngineScope.current?.register(self)
    }

    required init(client: SocketEngineClient, url: URL, options: [String: Any]?) {
        self._client = client
        super.init()
        TestEngineScope.current?.register(self)
    }

    func connect() {
        lock.withLock { _connectCount += 1 }
        if opensOnConnect {
            client?.engineDidOpen(reason: "Connect")
        }
    }

    func didError(reason: String) {
        client?.engineDidError(reason: reason)
    }

    func disconnect(reason: String) {
        lock.withLock { _disconnectReasons.append(reason) }
        client?.engineDidClose(reason: reason)
    }

    func doFastUpgrade() {}
    func flushWaitingForPostToWebSocket() {}
    func parseEngineData(_ data: Data) { client?.parseEngineBinaryData(data) }
    func parseEngineMessage(_ message: String) { client?.parseEngineMessage(message) }

    func write(_ msg: String, withType type: SocketEnginePacketType, withData data: [Data], completion: (() -> Void)?) {
        lock.withLock { _writes.append((msg, type, data)) }
        completion?()
    }
}

/// Collects values from handlers that run on other queues.
final class Recorder<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: `values` is behind `lock`.
    private let lock = NSLock()
    private var _values: [Value] = []

    func append(_ value: Value) { lock.withLock { _values.append(value) } }
    var values: [Value] { lock.withLock { _values } }
    var count: Int { lock.withLock { _values.count } }

    /// Waits (polling, bounded) until `predicate` holds for the recorded values.
    func wait(timeout: Double = 10, until predicate: ([Value]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(self.values) { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return predicate(self.values)
    }

    /// Waits (polling, bounded) until `count` reaches `target`.
    func wait(forCount target: Int, timeout: Double = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if self.count >= target { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return self.count >= target
    }
}

/// Makes a manager on a private serial queue with a ``TestEngine`` installed.
func makeManager(
    _ config: SocketIOClientConfiguration = [],
    timers: (any SocketTimerSource)? = nil
) -> (SocketManager, TestEngine, DispatchQueue) {
    let queue = DispatchQueue(label: "handle-queue")
    let url = URL(string: "http://localhost:1/")!
    let config = config + [.handleQueue(queue), .reconnectWait(0), .randomizationFactor(0)]
    let manager =
        timers.map { SocketManager(socketURL: url, config: config, timers: $0) }
        ?? SocketManager(socketURL: url, config: config)
    let engine = TestEngine(client: manager)
    manager.engine = engine
    return (manager, engine, queue)
}

/// A manager over a ``TestEngine`` (``makeManager(_:timers:)``) whose default socket is
/// connected: its CONNECT went out and the server's answer was read.
func connectedTestSocket(
    _ config: SocketIOClientConfiguration = [],
    timers: (any SocketTimerSource)? = nil
) -> (SocketManager, TestEngine, SocketIOClient, DispatchQueue) {
    let (manager, engine, queue) = makeManager(config, timers: timers)
    let socket = manager.defaultSocket
    socket.connect()
    drain(queue)
    manager.parseEngineMessage(#"0{"sid":"s1"}"#)
    drain(queue)
    return (manager, engine, socket, queue)
}

extension SocketIOClientConfiguration {
    static func + (lhs: SocketIOClientConfiguration, rhs: SocketIOClientConfiguration) -> SocketIOClientConfiguration {
        var result = lhs
        for option in rhs { result.insert(option, replacing: false) }
        return result
    }
}

/// Runs everything queued on `queue` so far.
func drain(_ queue: DispatchQueue) {
    queue.sync {}
}

/// A `SocketEngineClient` that ignores every engine event it does not implement itself: a
/// test's client writes only the callbacks it looks at.
protocol QuietEngineClient: SocketEngineClient {}

extension QuietEngineClient {
    func parseEngineMessage(_ msg: String) {}
    func engineDidError(reason: String) {}
    func engineDidClose(reason: String) {}
    func engineDidOpen(reason: String) {}
    func engineDidReceivePing() {}
    func engineDidReceivePong() {}
    func engineDidSendPing() {}
    func engineDidSendPong() {}
    func parseEngineBinaryData(_ data: Data) {}
    func engineDidWebsocketUpgrade(headers: [String: String]) {}
}
