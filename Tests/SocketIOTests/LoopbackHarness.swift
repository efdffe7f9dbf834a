import Dispatch
import Foundation
import RealtimeTime
import SocketIO
import TestSupport

/// Which engine.io transports a loopback test uses.
enum TransportMode: String, CaseIterable, CustomStringConvertible, Sendable {
    case polling, webSocket, upgrade

    var description: String { self.rawValue }

    var options: SocketIOClientConfiguration {
        switch self {
        case .polling: return [.forcePolling(true)]
        case .webSocket: return [.forceWebsockets(true)]
        case .upgrade: return []
        }
    }

    /// Modes this build's default transports can run. In the REALTIME_NO_NATIVE_STACK build the default transport is URLSession, whose WebSocket
    /// cannot open on Linux: polling only there (see `BuildConfiguration.noWebSocketReason`).
    static var available: [TransportMode] {
        if BuildConfiguration.noNativeStack { return [.polling] }
        return [.polling, .webSocket, .upgrade]
    }
}

/// Which python-socketio server integration a loopback test talks to.
enum ServerFlavor: String, CaseIterable, CustomStringConvertible, Sendable {
    /// `AsyncServer(async_mode="aiohttp")` attached to an aiohttp application.
    case aiohttp
    /// `AsyncServer(async_mode="asgi")` as a `socketio.ASGIApp` under uvicorn.
    case asgi

    var description: String { self.rawValue }

    /// `sio_server.py` arguments that select this flavor.
    var serverArguments: [String] { self == .asgi ? ["--asgi"] : [] }
}

/// Waits for one event on a socket; registered before the action that triggers it.
final class EventWaiter: @unchecked Sendable {
    // `@unchecked Sendable`: `result` is behind `lock`.
    private let lock = NSLock()
    private var result: [Any]?

    init(_ socket: SocketIOClient, _ event: String) {
        socket.once(event) { [self] data, _ in
            self.lock.withLock { self.result = data }
        }
    }

    convenience init(_ socket: SocketIOClient, clientEvent: SocketClientEvent) {
        self.init(socket, clientEvent.rawValue)
    }

    /// The event's items, or `nil` after `timeout` seconds.
    func value(timeout: Double = 10) async -> [Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let result = self.lock.withLock({ self.result }) { return result }
            try? await Task.sleep(.milliseconds(5))
        }
        return self.lock.withLock { self.result }
    }
}

/// A python-socketio server and a manager pointed at it.
struct LoopbackHarness {
    let server: TestServer
    let manager: SocketManager
    let queue: DispatchQueue

    init(
        _ mode: TransportMode, _ flavor: ServerFlavor = .aiohttp, serverArguments: [String] = [],
        extra: SocketIOClientConfiguration = []
    ) async throws {
        self.server = try await TestServer.start("sio_server.py", arguments: flavor.serverArguments + serverArguments)
        self.queue = DispatchQueue(label: "sio-loopback")
        var config: SocketIOClientConfiguration = [.handleQueue(self.queue), .reconnects(false)]
        for option in mode.options + extra { config.insert(option) }
        self.manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(self.server.port)")!, config: config)
    }

    /// Connects `socket` and returns the `connect` items, or the `error` items when refused.
    @discardableResult
    func connect(_ socket: SocketIOClient, payload: [String: Any]? = nil) async -> (connected: [Any]?, error: [Any]?) {
        let connected = EventWaiter(socket, clientEvent: .connect)
        let failed = EventWaiter(socket, clientEvent: .error)
        socket.connect(withPayload: payload)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let items = await connected.value(timeout: 0.01) { return (items, nil) }
            if let items = await failed.value(timeout: 0.01) { return (nil, items) }
        }
        return (nil, nil)
    }

    /// Emits with an ack and waits for the answer (or `["NO ACK"]`).
    func ack(_ socket: SocketIOClient, _ event: String, _ items: [SocketData], timeout: Double = 5) async -> [Any]? {
        let recorder = Recorder<[Any]>()
        socket.emitWithAck(event, with: items).timingOut(after: timeout) { recorder.append($0) }
        guard await recorder.wait(forCount: 1, timeout: timeout + 5) else { return nil }
        return recorder.values.first
    }

    func stop() {
        self.manager.disconnect()
        self.server.stop()
    }
}
