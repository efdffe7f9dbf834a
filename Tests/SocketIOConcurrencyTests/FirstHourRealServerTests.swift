import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// What a new user meets first, against the reference server (socket.io 4.8,
/// `Tests/Servers/node_first_hour_server.js`): an emit while the socket still connects, emits
/// with no arguments, typed events under connection state recovery, and the data of a refused
/// connection.
@Suite(
    .serialized, .enabled(if: NodeReference.isAvailable, "\(NodeReference.unavailableReason ?? "")"),
    TestTimeLimit.minutes(2))
struct FirstHourRealServerTests {
    typealias Mode = AuthProviderRealServerTests.Mode

    struct NewMessage: Decodable, Sendable, Equatable {
        var id: Int
        var message: String
    }

    func manager(port: Int, _ mode: Mode, reconnects: Bool = true) -> SocketManager {
        var config: SocketIOClientConfiguration = [
            .log(false), .reconnects(reconnects), .reconnectWait(1), .randomizationFactor(0),
            .handleQueue(DispatchQueue(label: "FirstHourRealServerTests")),
        ]
        for option in mode.options { config.insert(option) }
        return SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
    }

    // MARK: Emits while connecting

    /// The seed's flow after upstream's synchronous `connect()` (what `try await
    /// socket.connect()` binds to at the top level of `main.swift`): the awaited emits wait for
    /// the connection instead of failing with `notConnected`.
    @Test(arguments: Mode.available)
    func awaitedEmitsMadeWhileConnectingWaitForTheConnection(_ mode: Mode) async throws {
        let server = try await TestServer.startNode("node_first_hour_server.js")
        defer { server.stop() }
        let manager = self.manager(port: server.port, mode)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket

        Self.startConnecting(socket)
        #expect(socket.status == .connecting)
        let ack = try await socket.emitWithAck("message:send", "hello", timeout: 10)
        #expect(ack["ok"] == true)
        #expect(socket.status == .connected)

        // The fire-and-forget emit waits too: after a fresh connect, it reaches the server.
        try await socket.disconnect()
        Self.startConnecting(socket)
        await socket.emit("ping", "after connect")
        _ = try await server.waitForLine { $0 == #"{"event":"ping","args":1}"# }
    }

    /// Upstream's synchronous `connect(withPayload:)`, which returns while the socket connects
    /// (in an `async` function, `socket.connect()` is the async method).
    static func startConnecting(_ socket: SocketIOClient, payload: [String: Any]? = nil) {
        socket.connect(withPayload: payload)
    }

    /// A connect that the server refuses ends the wait at once with `notConnected`, not after
    /// the emit's timeout.
    @Test func anEmitWaitingOnARefusedConnectFailsWhenTheConnectFails() async throws {
        let server = try await TestServer.startNode("node_first_hour_server.js")
        defer { server.stop() }
        let manager = self.manager(port: server.port, .polling)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket

        Self.startConnecting(socket, payload: ["token": "expired"])
        let started = DispatchTime.now()
        await #expect(throws: SocketIOClient.Error.notConnected(event: "message:send")) {
            _ = try await socket.emitWithAck("message:send", "hello", timeout: 60)
        }
        // Far below the 60 s timeout: the refusal ended the wait (a loaded machine still
        // answers a loopback CONNECT within seconds).
        #expect(Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 < 30)
        #expect(socket.status != .connected)
    }

    // MARK: Emits with no arguments

    /// `emit("ping")` and `emitWithAck("ping")` with no items compile in both APIs and send
    /// an event with no arguments.
    @Test func emitsWithNoArgumentsSendNoArguments() async throws {
        let server = try await TestServer.startNode("node_first_hour_server.js")
        defer { server.stop() }
        let manager = self.manager(port: server.port, .polling)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 10)

        // The async API.
        await socket.emit("ping")
        let asyncAck = try await socket.emitWithAck("ping")
        #expect(asyncAck == 0)  // the server acks the number of arguments it got

        // The callback API, from synchronous code.
        let callbackAcks = Collector<String>()
        Self.callbackPing(socket) { callbackAcks.append("\($0)") }
        try await waitUntil(seconds: 10) { callbackAcks.all.count == 1 }
        #expect(callbackAcks.all == ["[0]"])

        try await waitUntil(seconds: 10) { server.lines.filter { $0.hasPrefix(#"{"event":"ping""#) }.count >= 4 }
        #expect(server.lines.filter { $0.hasPrefix(#"{"event":"ping""#) } == Array(repeating: #"{"event":"ping","args":0}"#, count: 4))
    }

    /// Upstream's callback form, called from synchronous code as apps do.
    static func callbackPing(_ socket: SocketIOClient, acked: @escaping ([Any]) -> Void) {
        socket.emit("ping")
        socket.emitWithAck("ping").timingOut(after: 10) { items in acked(items) }
    }

    // MARK: Typed events under connection state recovery

    /// With recovery on, the server appends an offset to each event it sends without an ack:
    /// the untyped stream sees it (as socket.io-client's handlers do), the typed stream decodes
    /// the event's own argument, on the reading thread's path and on `handleQueue`'s.
    @Test(arguments: Mode.available, [false, true])
    func typedStreamsDecodeTheEventsOwnArgumentsUnderRecovery(_ mode: Mode, withAnyHandler: Bool) async throws {
        let server = try await TestServer.startNode("node_first_hour_server.js", arguments: ["recovery"])
        defer { server.stop() }
        let manager = self.manager(port: server.port, mode)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 10)
        if withAnyHandler {
            // An `[Any]` handler for the event moves its delivery to `handleQueue`.
            socket.on("message:new") { _, _ in }
        }

        let typed = socket.on("message:new", as: NewMessage.self, bufferingPolicy: .unbounded)
        let untyped = socket.on("message:new", bufferingPolicy: .unbounded)
        #expect(try await socket.emitWithAck("typed", timeout: 10) == "sent")

        var decoded: [NewMessage] = []
        for try await message in typed {
            decoded.append(message)
            if decoded.count == 3 { break }
        }
        #expect(decoded.map(\.id) == [1, 2, 3])
        #expect(decoded.map(\.message) == ["one", "two", "three"])

        var raw: [SocketIOClient.Payload] = []
        for try await payload in untyped {
            raw.append(payload)
            if raw.count == 3 { break }
        }
        // The two events without an ack carry the offset; the one asking for an ack does not.
        #expect(raw[0].arrayValue?.count == 2 && raw[0].arrayValue?.last?.stringValue != nil, "\(raw)")
        #expect(raw[1].arrayValue?.count == 2 && raw[1].arrayValue?.last?.stringValue != nil, "\(raw)")
        #expect(raw[2]["id"] == 3, "\(raw)")
    }

    /// Without recovery nothing is appended: a string last argument is the app's own.
    @Test func typedStreamsKeepAStringLastArgumentWithoutRecovery() async throws {
        let server = try await TestServer.startNode("node_first_hour_server.js")
        defer { server.stop() }
        let manager = self.manager(port: server.port, .polling)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 10)

        let typed = socket.on("message:new", as: NewMessage.self, bufferingPolicy: .unbounded)
        let untyped = socket.on("message:new", bufferingPolicy: .unbounded)
        #expect(try await socket.emitWithAck("typed", timeout: 10) == "sent")
        var iterator = typed.makeAsyncIterator()
        #expect(try await iterator.next() == NewMessage(id: 1, message: "one"))
        var raw = untyped.makeAsyncIterator()
        #expect(try await raw.next()?["id"] == 1)
    }

    // MARK: A refused connection's data

    /// `next(err)` with `err.data`: the async error carries it as a `Payload`, the callback
    /// API's `.error` items carry the server's object, as upstream passes it.
    @Test(arguments: Mode.available)
    func aConnectErrorsDataReachesBothAPIs(_ mode: Mode) async throws {
        let server = try await TestServer.startNode("node_first_hour_server.js")
        defer { server.stop() }
        let manager = self.manager(port: server.port, mode, reconnects: false)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        // The `.error` items as upstream passes them: one item, the server's object.
        let errorItems = Collector<SocketIOClient.Payload>()
        socket.on(clientEvent: .error) { items, _ in
            if items.count == 1, let item = try? SocketIOClient.Payload(socketValue: items[0]) { errorItems.append(item) }
        }

        do {
            try await socket.connect(withPayload: ["token": "expired"], timeout: 10)
            Issue.record("the server accepted an expired token")
        } catch .clientError(let event, let message, .socketIO) {
            #expect(event == "connect")
            #expect(message == "token expired")
        } catch {
            Issue.record("unexpected error \(error)")
        }
        do {
            try await socket.connect(withPayload: ["token": "expired"], timeout: 10)
        } catch {
            #expect(error.data == ["reason": "expired", "retry": false])
            #expect(error.description == #"socketIO error on 'connect': token expired (data: {"reason": "expired", "retry": false})"#)
        }

        try await waitUntil(seconds: 10) { !errorItems.all.isEmpty }
        #expect(errorItems.all.first == ["message": "token expired", "data": ["reason": "expired", "retry": false]])
    }
}
