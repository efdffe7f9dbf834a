import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SocketIO

/// Connection state recovery against the reference server (socket.io 4.8 with
/// `connectionStateRecovery`, `Tests/Servers/node_recovery_server.js`), over polling, WebSocket
/// and the upgrade: python-socketio does not recover sessions.
@Suite(.serialized, .enabled(if: NodeReference.isAvailable, "\(NodeReference.unavailableReason ?? "")"))
struct SocketIORecoveryLoopbackTests {
    /// A manager on the reference server that reconnects at once, and a log of what the main
    /// namespace's socket saw, in order.
    struct Client {
        let manager: SocketManager
        let socket: SocketIOClient
        let queue = DispatchQueue(label: "SocketIORecoveryLoopbackTests")
        let log = Recorder<String>()

        /// `reconnectWait` 1: the first try is at once, the next one a second later (0 would start
        /// a new try before the first one's handshake is done).
        init(port: Int, mode: TransportMode, reconnects: Bool = true, subclassed: Bool = false) {
            self.manager = SocketManager(
                socketURL: URL(string: "http://127.0.0.1:\(port)")!,
                config: mode.options + [
                    .log(ProcessInfo.processInfo.environment["RECOVERY_LOG"] != nil), .handleQueue(self.queue), .reconnects(reconnects),
                    .reconnectWait(1), .reconnectWaitMax(1),
                    .randomizationFactor(0),
                ])
            if subclassed {
                // As `sio` and upstream apps install one: the manager's socket for "/".
                let socket = EventCountingSocket(manager: self.manager, nsp: "/")
                self.manager.nsps["/"] = socket
                self.socket = socket
            } else {
                self.socket = self.manager.defaultSocket
            }
            let log = self.log
            self.socket.on(clientEvent: .connect) { _, _ in log.append("connect") }
            for event in ["room", "bin", "vol", "withack", "fake"] {
                self.socket.on(event) { data, _ in
                    // Every replayable event carries the server's offset as its last argument;
                    // the handlers get it, as socket.io-client's do.
                    let first: String
                    switch data.first {
                    case let bytes as Data: first = "\(Array(bytes))"
                    case let value?: first = "\(value)"
                    case nil: first = ""
                    }
                    log.append("\(event):\(first):\(data.count > 1 && data.last is String ? "offset" : "-")")
                }
            }
        }

        func connect() async -> Bool {
            let connects = self.log.values.filter { $0 == "connect" }.count
            self.socket.connect()
            return await self.log.wait { $0.filter { $0 == "connect" }.count == connects + 1 }
        }

        /// Emits `event` with `items` and waits for its ack.
        func ask(_ event: String, _ items: SocketData...) async -> [Any]? {
            let answer = Recorder<[Any]>()
            self.socket.emitWithAck(event, with: items).timingOut(after: 5) { answer.append($0) }
            guard await answer.wait(forCount: 1) else { return nil }
            return answer.values.first
        }

        /// Connects, and has the server broadcast one event so that the socket holds an
        /// offset; returns the socket id.
        func connectAndWarm() async -> String? {
            #expect(await self.connect())
            #expect(await self.ask("warm") != nil)
            #expect(await self.log.wait { $0.last == "room:0:offset" })
            return self.socket.sid
        }

        /// What the log got after its `index`th entry.
        func log(after index: Int) -> [String] {
            Array(self.log.values.dropFirst(index))
        }
    }

    /// The missed events in the order the server emitted them, each once; no volatile event,
    /// no event that expected an ack.
    static let replay = ["room:1:offset", "room:2:offset", "bin:[1, 2, 3]:offset", "room:3:offset", "connect"]

    @Test(arguments: TransportMode.available)
    func aServerSideCutIsRecoveredTwiceWithTheMissedEventsBeforeConnect(_ mode: TransportMode) async throws {
        let server = try await TestServer.startNode("node_recovery_server.js")
        defer { server.stop() }
        let client = Client(port: server.port, mode: mode)
        defer { client.manager.disconnect() }

        let sid = try #require(await client.connectAndWarm())
        #expect(!client.socket.recovered)

        for round in 1...2 {
            // The reference server keeps the session it restored: within its window a second
            // cut is recovered too.
            let mark = client.log.count
            #expect(await client.ask("cut", "server") != nil)
            #expect(await client.log.wait { $0.count >= mark + Self.replay.count })
            #expect(client.log(after: mark) == Self.replay, "round \(round)")
            #expect(client.socket.recovered, "round \(round)")
            #expect(client.socket.sid == sid)
        }
        // The CONNECTs after the cuts carried the session id and the last offset. (The
        // server's line of the last one may come after the client saw `connect`: wait for it.)
        _ = try await server.waitForLine { _ in server.lines.filter { $0.hasPrefix(#"{"connection""#) }.count >= 3 }
        let connections = server.lines.filter { $0.hasPrefix(#"{"connection""#) }
        #expect(connections.count == 3)
        #expect(connections.dropFirst().allSatisfy { $0.contains(#""recovered":true"#) && $0.contains(#""pid":"#) && $0.contains(#""offset":"#) })
    }

    /// A `SocketIOClient` subclass that overrides the open `handleEvent` and calls `super` (its
    /// packets take `handleQueue` and the open `handlePacket`) recovers as the base class does:
    /// the offset of the last event goes with the reconnection's CONNECT, the missed events
    /// are replayed and the override sees each of them.
    @Test(arguments: TransportMode.available)
    func aSubclassedSocketIsRecoveredToo(_ mode: TransportMode) async throws {
        let server = try await TestServer.startNode("node_recovery_server.js")
        defer { server.stop() }
        let client = Client(port: server.port, mode: mode, subclassed: true)
        defer { client.manager.disconnect() }

        let sid = try #require(await client.connectAndWarm())
        let mark = client.log.count
        #expect(await client.ask("cut", "server") != nil)
        #expect(await client.log.wait { $0.count >= mark + Self.replay.count })
        #expect(client.log(after: mark) == Self.replay)
        #expect(client.socket.recovered)
        #expect(client.socket.sid == sid)
        let reconnected = try await server.waitForLine { $0.hasPrefix(#"{"connection""#) && $0.contains(#""pid":"#) }
        #expect(reconnected.contains(#""recovered":true"#) && reconnected.contains(#""offset":"#), "\(reconnected)")
        let overridden = try #require(client.socket as? EventCountingSocket)
        #expect(overridden.networkEvents.values.filter { $0 == "room" }.count == 4)  // "room" 0, 1, 2, 3
    }

    /// The client closes its own engine (the manager reconnects): the same recovery.
    @Test(arguments: TransportMode.available)
    func aClientSideEngineCloseIsRecovered(_ mode: TransportMode) async throws {
        let server = try await TestServer.startNode("node_recovery_server.js")
        defer { server.stop() }
        let client = Client(port: server.port, mode: mode)
        defer { client.manager.disconnect() }

        let sid = await client.connectAndWarm()
        let mark = client.log.count
        #expect(await client.ask("cut", "client") != nil)
        client.manager.engine?.disconnect(reason: "test cut")
        #expect(await client.log.wait { $0.count >= mark + Self.replay.count })
        #expect(client.log(after: mark) == Self.replay)
        #expect(client.socket.recovered)
        #expect(client.socket.sid == sid)
        // The server saw the close itself, not a ping timeout: the reconnection (at once) did
        // not cancel the close on its way (EngineClosePOSTTests).
        let left = try await server.waitForLine { $0.hasPrefix(#"{"disconnect""#) }
        #expect(left.contains(#""reason":"transport close""#), "\(left)")
    }

    /// The server declines, and `recovered` is `false`: after a manual disconnect (a namespace
    /// leave is not persisted; the client still sends pid and offset, as socket.io-client does),
    /// after the session expired, and with an offset the server does not know.
    @Test func theServerDeclinesAfterALeaveAnExpiryOrAnUnknownOffset() async throws {
        let mode = TransportMode.available.contains(.webSocket) ? TransportMode.webSocket : .polling

        // A manual disconnect and connect.
        do {
            let server = try await TestServer.startNode("node_recovery_server.js")
            defer { server.stop() }
            let client = Client(port: server.port, mode: mode)
            defer { client.manager.disconnect() }
            let sid = await client.connectAndWarm()
            client.socket.disconnect()
            // Connect again once the server has processed the leave: a CONNECT right behind the
            // DISCONNECT reaches socket.io 4.8 while it still holds the namespace's socket (it
            // removes it on the next tick), which it treats as an invalid state and answers by
            // closing the connection ("forced close": a recoverable reason).
            _ = try await server.waitForLine { $0.contains(#""reason":"client namespace disconnect""#) }
            #expect(await client.connect())
            #expect(!client.socket.recovered)
            #expect(client.socket.sid != sid)
            let second = try await server.waitForLine {
                $0.hasPrefix(#"{"connection""#) && $0.contains(#""recovered":false"#) && $0.contains(#""pid":"#)
            }
            #expect(second.contains(#""offset":"#))
        }

        // An expired session: a 300 ms window; the client connects again after 600 ms.
        do {
            let server = try await TestServer.startNode("node_recovery_server.js", arguments: ["300"])
            defer { server.stop() }
            let client = Client(port: server.port, mode: mode, reconnects: false)
            defer { client.manager.disconnect() }
            let sid = await client.connectAndWarm()
            let mark = client.log.count
            let disconnected = EventWaiter(client.socket, clientEvent: .disconnect)
            #expect(await client.ask("cut", "server") != nil)
            #expect(await disconnected.value() != nil)
            try await Task.sleep(.milliseconds(600))
            #expect(await client.connect())
            #expect(client.log(after: mark) == ["connect"])  // nothing replayed
            #expect(!client.socket.recovered)
            #expect(client.socket.sid != sid)
            // The reconnection's CONNECT carried the pid (the server's line may come after
            // `connect` returned: wait for it).
            let reconnected = try await server.waitForLine { $0.hasPrefix(#"{"connection""#) && $0.contains(#""pid":"#) }
            #expect(reconnected.contains(#""recovered":false"#))
        }

        // An offset the server never issued.
        do {
            let server = try await TestServer.startNode("node_recovery_server.js")
            defer { server.stop() }
            let client = Client(port: server.port, mode: mode)
            defer { client.manager.disconnect() }
            let sid = await client.connectAndWarm()
            #expect(await client.ask("fake_offset") != nil)
            #expect(await client.log.wait { $0.last == "fake:bogus-offset:-" })
            let mark = client.log.count
            #expect(await client.ask("cut", "server") != nil)
            #expect(await client.log.wait { $0.dropFirst(mark).contains("connect") })
            #expect(client.log(after: mark) == ["connect"])
            #expect(!client.socket.recovered)
            #expect(client.socket.sid != sid)
        }
    }
}

/// A socket subclass as apps (and `sio`) write them: it overrides the open `handleEvent` and
/// calls `super`, which sends its packets through `handleQueue` and the open `handlePacket`.
final class EventCountingSocket: SocketIOClient, @unchecked Sendable {
    // @unchecked: SocketIOClient is thread-safe; this adds one Sendable `let`.
    let networkEvents = Recorder<String>()

    override func handleEvent(_ event: String, data: [Any], isInternalMessage: Bool, withAck ack: Int = -1) {
        if !isInternalMessage { self.networkEvents.append(event) }
        super.handleEvent(event, data: data, isInternalMessage: isInternalMessage, withAck: ack)
    }
}
