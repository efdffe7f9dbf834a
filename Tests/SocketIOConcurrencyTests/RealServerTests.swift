import Dispatch
import Foundation
import RealtimeTime
import SocketIOConcurrency
import TestSupport
import Testing

/// The async layer against the real python-socketio server (`Tests/Servers/conc_server.py`)
/// over the project's own engine and transport.
@Suite(.serialized) struct RealServerTests {
    /// A started server and a manager pointed at it (WebSocket only, as the seed's config).
    struct Harness {
        let server: TestServer
        let manager: SocketManager
        var socket: SocketIOClient { self.manager.defaultSocket }

        /// WebSocket by default; polling in the REALTIME_NO_NATIVE_STACK build, whose URLSession
        /// cannot open a WebSocket on Linux.
        init(transport: SocketIOClientOption = BuildConfiguration.noNativeStack ? .forcePolling(true) : .forceWebsockets(true)) async throws {
            self.server = try await TestServer.start("conc_server.py")
            let queue = DispatchQueue(label: "RealServerTests.handleQueue")
            self.manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(self.server.port)")!,
                config: [.path("/socket.io/"), transport, .log(false), .reconnects(false), .handleQueue(queue)]
            )
        }
    }

    /// The seed's usage, step by step, asserting what it prints.
    @Test func seedUsageFlow() async throws {
        let harness = try await Harness()
        let socket = harness.socket
        let baseline = socket.handlers.count

        try await socket.connect()
        #expect(socket.status == .connected)

        let incoming = Collector<SocketIOClient.Payload>()
        let incomingTask = Task {
            for try await payload in socket.on("message:new") {
                incoming.append(payload)
            }
        }
        try await waitUntil { socket.handlers.count == baseline + 3 }

        let ack = try await socket.emitWithAck("message:send", "hello", timeout: 3.0)
        #expect(ack["ok"] == true)
        let firstID = try #require(ack["id"]?.intValue)
        try await waitUntil { !incoming.all.isEmpty }
        #expect(incoming.all.first == ["id": .int(firstID), "message": "hello"])

        let payload: SocketIOClient.Payload = [
            "message": "hi",
            "attempt": 1,
            "ok": true,
        ]
        await socket.emit("message:send", payload)
        let confirmation = try await socket.emitWithAck("message:confirm", payload)
        #expect(confirmation == ["confirmed": true, "echo": payload])
        try await waitUntil { incoming.all.count == 2 }
        #expect(incoming.all[1]["message"] == payload)

        incomingTask.cancel()
        try await incomingTask.value
        try await socket.disconnect()
        #expect(socket.status == .disconnected)
        #expect(socket.handlers.count == baseline)
    }

    /// The error paths and value fidelity, each on a fresh manager against one server (a
    /// server start costs about two seconds here).
    @Test func errorPathsAndValuesAgainstOneServer() async throws {
        let server = try await TestServer.start("conc_server.py")
        func freshSocket(_ transport: SocketIOClientOption = BuildConfiguration.noNativeStack ? .forcePolling(true) : .forceWebsockets(true))
            -> (SocketManager, SocketIOClient)
        {
            let manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                config: [
                    transport, .log(false), .reconnects(false),
                    .handleQueue(DispatchQueue(label: "RealServerTests.handleQueue")),
                ])
            return (manager, manager.defaultSocket)
        }

        // CONNECT_ERROR: the server's message, nothing left registered.
        do {
            let (manager, socket) = freshSocket()
            let baseline = socket.handlers.count
            await #expect(throws: SocketIOClient.Error.clientError(event: "connect", message: "unauthorized", source: .socketIO)) {
                try await socket.connect(withPayload: ["token": "bad"], timeout: 5)
            }
            #expect(socket.status != .connected)
            #expect(socket.handlers.count == baseline)
            manager.disconnect()
        }

        // Booleans, integers, doubles, null and binary survive the wire, on every transport.
        for transport in BuildConfiguration.noNativeStack
            ? [SocketIOClientOption.forcePolling(true)]
            : [SocketIOClientOption.forceWebsockets(true), .forcePolling(true)]
        {
            let (manager, socket) = freshSocket(transport)
            try await socket.connect(timeout: 5)
            let ack = try await socket.emitWithAck("types", timeout: 5)
            #expect(ack == [true, 1, 1.5, "s", nil, [false, 0], .data(Data([1, 2]))])
            try await socket.disconnect()
            manager.disconnect()
        }

        // No ack within the timeout; then, after disconnecting, notConnected at once.
        do {
            let (manager, socket) = freshSocket()
            try await socket.connect()
            await #expect(throws: SocketIOClient.Error.ackTimedOut(event: "never_ack", timeout: 0.3)) {
                try await socket.emitWithAck("never_ack", 1, timeout: 0.3)
            }
            try await socket.disconnect()
            await #expect(throws: SocketIOClient.Error.notConnected(event: "message:send")) {
                try await socket.emitWithAck("message:send", "late")
            }
            manager.disconnect()
        }

        // The server drops the namespace: waiting acks and streams end with the typed reason.
        do {
            let (manager, socket) = freshSocket()
            try await socket.connect()
            let baseline = socket.handlers.count
            let stream = socket.on("message:new")
            #expect(try await socket.emitWithAck("kick_later", 0.2, timeout: 3) == "scheduled")
            await #expect(throws: SocketIOClient.Error.disconnected(event: "never_ack", reason: .gotDisconnect)) {
                try await socket.emitWithAck("never_ack", timeout: 5)
            }
            await #expect(throws: SocketIOClient.Error.disconnected(event: "message:new", reason: .gotDisconnect)) {
                for try await _ in stream {}
            }
            #expect(socket.handlers.count == baseline)
            #expect(socket.status == .disconnected)
            manager.disconnect()
        }

        // The status stream follows a real connection and disconnection.
        do {
            let (manager, socket) = freshSocket()
            let statuses = Task { () throws(SocketIOClient.Error) -> [SocketIOStatus] in
                var seen: [SocketIOStatus] = []
                for try await status in socket.onStatusChange() {
                    seen.append(status)
                    if status == .disconnected { break }
                }
                return seen
            }
            try await waitUntil { socket.handlers.count == 1 }
            try await socket.connect()
            try await socket.disconnect()
            let seen = try await statuses.value
            #expect(seen.first == .connecting)
            #expect(seen.contains(.connected))
            #expect(seen.last == .disconnected)
            manager.disconnect()
        }
        server.stop()
    }

    /// One hop to a `for await`: an awaiting `emitWithAck` and a stream are served on the
    /// thread that read the packet, so they go on while `handleQueue` is blocked; the
    /// callback API's ack waits for it.
    @Test func awaitingConsumersDoNotNeedHandleQueue() async throws {
        let server = try await TestServer.start("conc_server.py")
        defer { server.stop() }
        let queue = DispatchQueue(label: "RealServerTests.blockedHandleQueue")
        let manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            config: [
                BuildConfiguration.noNativeStack ? .forcePolling(true) : .forceWebsockets(true),
                .log(false), .reconnects(false), .handleQueue(queue),
            ])
        let socket = manager.defaultSocket
        try await socket.connect(timeout: 5)
        let baseline = socket.handlers.count
        let incoming = Collector<SocketIOClient.Payload>()
        let incomingTask = Task {
            for try await payload in socket.on("message:new") { incoming.append(payload) }
        }
        try await waitUntil { socket.handlers.count == baseline + 3 }
        // What the connection queued on `handleQueue` (the engine's open, the rest of the
        // CONNECT reply) has run: network work still waiting there would hold later packets
        // behind it, by design, and a loaded machine can leave it there past `connect`.
        try await waitUntil { manager.handleQueueBacklog.pending == 0 }

        queue.suspend()
        let ack = try await socket.emitWithAck("message:send", "awaited", timeout: 5)
        #expect(ack["ok"] == true)
        // The callback API's ack waits for `handleQueue` (and what arrives after it, behind it).
        let callbackAck = Collector<String>()
        socket.emitWithAck("message:send", "callback").timingOut(after: 10) { _ in callbackAck.append("acked") }
        try await waitUntil { incoming.all.count == 2 }
        #expect(incoming.all.compactMap { $0["message"]?.stringValue } == ["awaited", "callback"])
        try await Task.sleep(.milliseconds(200))
        #expect(callbackAck.all.isEmpty)
        queue.resume()
        try await waitUntil { callbackAck.all == ["acked"] }

        incomingTask.cancel()
        _ = try? await incomingTask.value
        try await socket.disconnect()
        manager.disconnect()
    }
}
