import EngineIOClient
import Foundation
import RealtimeHTTP
import RealtimeTime
import Testing

@testable import SocketIO

/// The engine performs its machine's actions in the order the machine produced them, whichever
/// thread produced them: a write made while an upgrade completes goes after the `5`.
@Suite struct SocketEngineUpgradeOrderTests {
    /// A client that answers the message `hello` with a write, from inside the delivery
    /// (as a handler that emits from its event does once the manager delivers it).
    final class ReplyingClient: SocketEngineClient, @unchecked Sendable {
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
        func engineDidReceivePing() {}
        func engineDidReceivePong() {}
        func engineDidSendPing() {}
        func engineDidSendPong() {}
        func parseEngineBinaryData(_ data: Data) {}
        func engineDidWebsocketUpgrade(headers: [String: String]) { self.events.append("upgraded") }
    }

    static let openPacket = #"0{"sid":"abc","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#

    /// Polls `condition` for up to five seconds.
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return condition()
    }

    @Test func aWriteMadeWhileTheUpgradeCompletesGoesAfterTheUpgradePacket() async throws {
        let scripted = ScriptedEngineTransports()
        let client = ReplyingClient()
        let engine = SocketEngine(
            client: client, url: URL(string: "http://example.invalid/")!,
            config: [], transports: scripted.transports)
        client.engine = engine
        defer { engine.disconnect(reason: "test over") }

        engine.connect()
        scripted.answerGET(Self.openPacket)
        #expect(await self.eventually { scripted.webSocket?.sent == ["2probe"] && scripted.waitingGETs == 1 })

        // `3probe` pauses polling; the GET still in flight ends the pause when it returns.
        let webSocket = try #require(scripted.webSocket)
        webSocket.push(.text("3probe"))
        #expect(await self.eventually { engine.state.withLock { $0.attempt.machine.isPausedForUpgrade } })

        // The last GET carries `hello`; the client answers it while the engine still performs
        // the actions of that GET (deliver `hello`, then send `5`).
        scripted.answerGET("4hello")
        #expect(await self.eventually { webSocket.sent.count >= 3 })
        #expect(webSocket.sent == ["2probe", "5", "4reply"])
        #expect(client.events.values.prefix(3) == ["open", "message hello", "upgraded"])
    }
}
