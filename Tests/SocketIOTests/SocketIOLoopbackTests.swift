import Dispatch
import Foundation
import SocketIO
import TestSupport
import Testing

/// The public API against a real python-socketio 5.18 server (Tests/Servers/sio_server.py),
/// for each transport mode.
@Suite(.serialized) struct SocketIOLoopbackTests {
    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func connectEventsTypesAcksAndOrder(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let harness = try await LoopbackHarness(mode, flavor)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket

        // The server emits "welcome" from its connect handler, before its CONNECT packet.
        let welcome = EventWaiter(socket, "welcome")
        let upgraded = EventWaiter(socket, clientEvent: .websocketUpgrade)
        let (connected, refused) = await harness.connect(socket)
        #expect(refused == nil)
        let connect = try #require(connected)
        #expect(connect.first as? String == "/")
        let sid = try #require((connect.last as? [String: Any])?["sid"] as? String)
        #expect(socket.sid == sid)
        #expect(socket.status == .connected)
        #expect(harness.manager.status == .connected)
        let welcomed = await welcome.value()
        #expect((welcomed?.first as? [String: Any])?["sid"] as? String == sid)

        switch mode {
        case .upgrade:
            let headers = await upgraded.value()
            #expect(headers?.first is [String: String])
            #expect(harness.manager.engine?.polling == false)
        case .polling:
            #expect(harness.manager.engine?.polling == true)
        case .webSocket:
            #expect(harness.manager.engine?.polling == false)
        }

        // Every SocketData type, Data nested in containers.
        let echo = EventWaiter(socket, "echo")
        socket.emit(
            "echo", "text", 42, 2.5, true, false, NSNull(), [1, "two", [3.5]] as [Any],
            ["blob": Data([0, 255]), "list": [Data([7])], "n": 1] as [String: Any], Data([1, 2, 3]))
        let echoed = try #require(await echo.value())
        #expect(echoed.count == 9)
        #expect(echoed[0] as? String == "text")
        #expect(echoed[1] as? Int == 42)
        #expect(echoed[2] as? Double == 2.5)
        #expect(echoed[3] as? Bool == true)
        #expect(echoed[4] as? Bool == false)
        #expect(type(of: echoed[3]) == Bool.self)
        #expect(echoed[5] is NSNull)
        let list = try #require(echoed[6] as? [Any])
        #expect(list[0] as? Int == 1 && list[1] as? String == "two" && (list[2] as? [Any])?.first as? Double == 3.5)
        let object = try #require(echoed[7] as? [String: Any])
        #expect(object["blob"] as? Data == Data([0, 255]))
        #expect((object["list"] as? [Any])?.first as? Data == Data([7]))
        #expect(object["n"] as? Int == 1)
        #expect(echoed[8] as? Data == Data([1, 2, 3]))

        // Acks both ways, binary too.
        let plain = await harness.ack(socket, "ack_me", [1, "a"])
        #expect(plain?.count == 2 && plain?[0] as? Int == 1 && plain?[1] as? String == "a")
        let binary = try #require(await harness.ack(socket, "binary_ack", []))
        #expect(binary.first as? Data == Data([0, 1, 2]))
        #expect((binary.last as? [String: Any])?["nested"] as? Data == Data([0xFF]))

        socket.on("server_ask") { data, ack in
            ack.with("answer", data.first as? Int ?? -1, Data([9, 9]))
        }
        let answered = EventWaiter(socket, "client_answered")
        socket.emit("ask_client", 5)
        let answer = try #require(await answered.value())
        #expect(answer.first as? String == "answer")
        #expect(answer.count == 3 && answer[1] as? Int == 5 && answer[2] as? Data == Data([9, 9]))

        let timedOut = await harness.ack(socket, "never_ack", [1], timeout: 0.3)
        #expect(timedOut?.first as? String == "NO ACK")

        // 1,000 emits arrive in order; every write completion runs.
        let written = Recorder<Int>()
        for n in 0..<1_000 {
            socket.emit("seq", n, completion: { written.append(n) })
        }
        let sequence = try #require(await harness.ack(socket, "seq_result", [], timeout: 10))
        #expect((sequence.first as? [Any])?.compactMap { $0 as? Int } == Array(0..<1_000))
        #expect(await written.wait(forCount: 1_000))
        #expect(written.values == Array(0..<1_000))

        if mode == .polling {
            #expect(harness.manager.engine?.polling == true)
        }

        // Our disconnect.
        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        socket.disconnect()
        #expect(await disconnected.value()?.first as? String == "Namespace leave")
        #expect(socket.status == .disconnected)
    }

    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func authAcceptedRefusedAndNamespaces(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let harness = try await LoopbackHarness(mode, flavor)
        defer { harness.stop() }
        let root = harness.manager.defaultSocket
        let admin = harness.manager.socket(forNamespace: "/admin")

        #expect(await harness.connect(root, payload: ["token": "anything"]).connected != nil)

        // Refused: the server's CONNECT_ERROR object arrives as the error event.
        let refused = await harness.connect(admin, payload: ["token": "wrong"])
        #expect(refused.connected == nil)
        let error = try #require(refused.error?.first as? [String: Any])
        #expect(error["message"] as? String == "forbidden")
        #expect((error["data"] as? [String: Any])?["need"] as? String == "admin")
        #expect(admin.status == .disconnected)

        // Retrying with a good token works; both namespaces share one engine.
        let accepted = await harness.connect(admin, payload: ["token": "admin-secret"])
        #expect((accepted.connected?.first as? String) == "/admin")
        #expect(admin.status == .connected && root.status == .connected)
        let seen = await harness.ack(admin, "auth_seen", [])
        #expect((seen?.first as? [String: Any])?["token"] as? String == "admin-secret")

        // Events route to their namespace.
        let rootEcho = EventWaiter(root, "echo")
        let adminEcho = EventWaiter(admin, "echo")
        admin.emit("echo", "from admin")
        root.emit("echo", "from root")
        #expect(await adminEcho.value()?.first as? String == "from admin")
        #expect(await rootEcho.value()?.first as? String == "from root")

        // Refused on the default namespace too.
        let second = LoopbackHarnessSecondManager(harness)
        let bad = await harness.connect(second.manager.defaultSocket, payload: ["token": "bad"])
        let unauthorized = try #require(bad.error?.first as? [String: Any])
        #expect(unauthorized["message"] as? String == "unauthorized")
        #expect((unauthorized["data"] as? [String: Any])?["reason"] as? String == "bad token")
        second.manager.disconnect()
    }

    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func serverInitiatedDisconnect(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let harness = try await LoopbackHarness(mode, flavor)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)

        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        socket.emit("kick")
        #expect(await disconnected.value()?.first as? String == "Got Disconnect")
        #expect(socket.status == .disconnected)

        // The engine is still open: the namespace can be joined again.
        #expect(await harness.connect(socket).connected != nil)
    }

    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func managerDisconnectClosesEverything(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let harness = try await LoopbackHarness(mode, flavor)
        defer { harness.server.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)
        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        harness.manager.disconnect()
        #expect(await disconnected.value()?.first as? String == "Disconnect")
        #expect(harness.manager.status == .disconnected)
        let engine = try #require(harness.manager.engine)
        #expect(engine.closed && !engine.connected)
    }
}

/// A second manager on the same server (its own engine).
struct LoopbackHarnessSecondManager {
    let manager: SocketManager

    init(_ harness: LoopbackHarness) {
        self.manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(harness.server.port)")!,
            config: [
                .handleQueue(harness.queue), .reconnects(false),
                // URLSession cannot open a WebSocket on Linux.
                BuildConfiguration.noNativeStack ? .forcePolling(true) : .forceWebsockets(true),
            ])
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.serialized) struct SocketIOOptionsLoopbackTests {
    @Test(arguments: TransportMode.available, ServerFlavor.allCases)
    func headersCookiesQueryAndStickySessionReachTheServer(_ mode: TransportMode, _ flavor: ServerFlavor) async throws {
        let cookie = try #require(
            HTTPCookie(properties: [
                .name: "session", .value: "s1",
                .domain: "127.0.0.1", .path: "/",
            ]))
        let harness = try await LoopbackHarness(
            mode, flavor,
            extra: [
                .extraHeaders(["X-Client": "swift"]),
                .cookies([cookie]),
                .connectParams(["room": "lobby"]),
            ])
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)

        let environ = try #require(await harness.ack(socket, "environ_seen", [])?.first as? [String: Any])
        #expect((environ["cookie"] as? String)?.contains("session=s1") == true)
        #expect(environ["x_client"] as? String == "swift")
        #expect((environ["query"] as? String)?.contains("room=lobby") == true)
        #expect((environ["query"] as? String)?.contains("EIO=4") == true)

        guard mode != .webSocket else { return }
        for index in 0..<20 {
            socket.emit("seq", index)
        }
        _ = await harness.ack(socket, "seq_result", [])
        let report = try #require(await harness.ack(socket, "sticky_report", [])?.first as? [String: Any])
        #expect((report["with"] as? Int ?? 0) > 0)
        #expect(report["without"] as? Int == 0)
    }
}

@Suite(.serialized, .needsDefaultWebSocket) struct SocketIOCompressionLoopbackTests {
    @Test func compressNegotiatesPermessageDeflateOnTheUpgrade() async throws {
        guard TransportMode.available.contains(.upgrade) else { return }
        let harness = try await LoopbackHarness(.upgrade, extra: [.compress])
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        let upgraded = EventWaiter(socket, clientEvent: .websocketUpgrade)
        #expect(await harness.connect(socket).connected != nil)
        let headers = try #require(await upgraded.value()?.first as? [String: String])
        let extensions = headers.first(where: { $0.key.lowercased() == "sec-websocket-extensions" })?.value ?? ""
        #expect(extensions.contains("permessage-deflate"))

        let big = String(repeating: "compressible ", count: 20_000)
        let echo = EventWaiter(socket, "echo")
        socket.emit("echo", big)
        #expect(await echo.value()?.first as? String == big)
    }
}
