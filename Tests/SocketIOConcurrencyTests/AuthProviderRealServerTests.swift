import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// `connect(authProvider:)`: the provider is asked before every CONNECT, so the rejoin after a
/// transport loss carries a fresh token; against python-socketio (`conc_server.py`) over
/// polling, WebSocket and the upgrade, and against the reference server (socket.io 4.8).
@Suite(.serialized) struct AuthProviderRealServerTests {
    enum Mode: String, CaseIterable, Sendable {
        case polling, webSocket, upgrade

        var options: SocketIOClientConfiguration {
            switch self {
            case .polling: [.forcePolling(true)]
            case .webSocket: [.forceWebsockets(true)]
            case .upgrade: []
            }
        }

        static var available: [Mode] { BuildConfiguration.noNativeStack ? [.polling] : Mode.allCases }
    }

    /// Tokens "t1", "t2", ... one per call.
    final class TokenStore: Sendable {
        let calls = Collector<Int>()

        func fresh() async throws -> SocketIOClient.Payload {
            self.calls.append(self.calls.all.count + 1)
            return ["token": .string("t\(self.calls.all.count)")]
        }
    }

    func manager(port: Int, _ mode: Mode) -> SocketManager {
        var config: SocketIOClientConfiguration = [
            .log(false), .reconnectWait(1), .randomizationFactor(0),
            .handleQueue(DispatchQueue(label: "AuthProviderRealServerTests")),
        ]
        for option in mode.options { config.insert(option) }
        return SocketManager(socketURL: URL(string: "http://127.0.0.1:\(port)")!, config: config)
    }

    /// Connects with the provider, checks the first token, loses the transport (`drop`), and
    /// checks that the rejoin asked again and sent the second token.
    func refreshOnRejoin(port: Int, mode: Mode, drop: (SocketIOClient) async throws -> Void) async throws {
        let manager = self.manager(port: port, mode)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        let tokens = TokenStore()
        try await socket.connect(authProvider: { try await tokens.fresh() }, timeout: 5)
        #expect(try await socket.emitWithAck("auth_seen", timeout: 5)["token"] == "t1")

        let reconnected = Collector<SocketIOStatus>()
        let watcher = Task {
            for try await status in socket.onStatusChange() where status == .connected {
                reconnected.append(status)
                return
            }
        }
        try await drop(socket)
        try await waitUntil(seconds: 10) { !reconnected.all.isEmpty }
        watcher.cancel()
        #expect(tokens.calls.all == [1, 2])
        #expect(try await socket.emitWithAck("auth_seen", timeout: 5)["token"] == "t2")
    }

    @Test(arguments: Mode.available)
    func pythonSocketIOSeesAFreshTokenOnEveryRejoin(_ mode: Mode) async throws {
        let server = try await TestServer.start("conc_server.py")
        try await self.refreshOnRejoin(port: server.port, mode: mode) { socket in
            let answer = try await socket.emitWithAck("drop_transport", timeout: 5)
            #expect(answer == "dropping")
        }
    }

    @Test(.enabled(if: NodeReference.isAvailable, "\(NodeReference.unavailableReason ?? "")"), arguments: Mode.available)
    func theReferenceServerSeesAFreshTokenOnEveryRejoin(_ mode: Mode) async throws {
        let server = try await TestServer.startNode("node_recovery_server.js")
        defer { server.stop() }
        try await self.refreshOnRejoin(port: server.port, mode: mode) { socket in
            let answer = try await socket.emitWithAck("cut", "server", timeout: 5)
            #expect(answer == "cut")
        }
    }

    /// A provider that throws refuses the namespace: `connect` throws with its reason, and
    /// nothing is left joined; a refused token ("bad") is the server's CONNECT_ERROR.
    @Test func aThrowingProviderOrARefusedTokenFailsTheConnect() async throws {
        struct Offline: Error, CustomStringConvertible {
            var description: String { "token store offline" }
        }
        let server = try await TestServer.start("conc_server.py")
        let manager = self.manager(port: server.port, Mode.available.contains(.webSocket) ? .webSocket : .polling)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        await #expect(
            throws: SocketIOClient.Error.clientError(event: "connect", message: "auth provider failed: token store offline", source: .socketIO)
        ) {
            try await socket.connect(authProvider: { throw Offline() }, timeout: 5)
        }
        #expect(socket.status != .connected)
        await #expect(throws: SocketIOClient.Error.clientError(event: "connect", message: "unauthorized", source: .socketIO)) {
            try await socket.connect(authProvider: { ["token": "bad"] }, timeout: 5)
        }
        try await socket.connect(authProvider: { ["token": "good"] }, timeout: 5)
        #expect(try await socket.emitWithAck("auth_seen", timeout: 5) == ["token": "good"])
    }
}
