import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SocketIO

/// `.parser(.msgpack)` against python-socketio with `serializer='msgpack'`
/// (`Tests/Servers/msgpack_server.py`), over polling, WebSocket and the upgrade: events, binary
/// data and acks both ways, every packet one binary Engine.IO message.
@Suite(.serialized) struct SocketIOMessagePackLoopbackTests {
    @Test(arguments: TransportMode.available)
    func eventsBinaryAndAcksBothWays(_ mode: TransportMode) async throws {
        let server = try await TestServer.start("msgpack_server.py")
        defer { server.stop() }
        let queue = DispatchQueue(label: "SocketIOMessagePackLoopbackTests")
        let manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            config: mode.options + [.parser(.msgpack), .log(false), .reconnects(false), .handleQueue(queue)])
        defer { manager.disconnect() }
        #expect(manager.parser == .msgpack)
        let socket = manager.defaultSocket

        // Server to client: an event with binary inline, received before or with `connect`.
        let welcome = EventWaiter(socket, "welcome")
        let connected = EventWaiter(socket, clientEvent: .connect)
        socket.connect()
        #expect(await connected.value() != nil)
        let greeting = try #require(await welcome.value()?.first as? [String: Any])
        #expect(greeting["bytes"] as? Data == Data([0, 1, 2]))
        #expect(greeting["sid"] as? String == socket.sid)

        // Client to server: binary arrives as bytes (not an attachment placeholder, not base64),
        // and the ack comes back with the same values.
        let kinds = Recorder<[Any]>()
        socket.emitWithAck("kinds", Data([9, 8]), ["k": 1], "s", 2.5, true).timingOut(after: 5) { kinds.append($0) }
        #expect(await kinds.wait(forCount: 1))
        #expect(kinds.values.first?.first as? [String] == ["bytes", "dict", "str", "float", "bool"])

        let echo = Recorder<[Any]>()
        socket.emitWithAck("echo", Data([1, 2, 3]), ["nested": ["b": Data([4])]]).timingOut(after: 5) { echo.append($0) }
        #expect(await echo.wait(forCount: 1))
        let echoed = try #require(echo.values.first)
        #expect(echoed.first as? Data == Data([1, 2, 3]))
        #expect(((echoed.last as? [String: Any])?["nested"] as? [String: Any])?["b"] as? Data == Data([4]))

        // Server asks the client for an ack; the client's answer (with binary) reaches it.
        socket.on("question") { data, ack in
            ack.with("answer", Data([7, 7]))
        }
        let answered = EventWaiter(socket, "answered")
        socket.emit("ask_client", "why")
        let answer = try #require(await answered.value()?.first as? [String: Any])
        let items = try #require(answer["answer"] as? [Any])
        #expect(items.first as? String == "answer")
        #expect(items.last as? Data == Data([7, 7]))
    }
}
