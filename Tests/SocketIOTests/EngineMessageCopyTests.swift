import EngineIOClient
import Foundation
import RealtimeSync
import Testing

@testable import SocketIO

/// A WebSocket text frame reaches the engine's open `parseEngineMessage(_:)` as the same
/// string the connection received: no copy strips the `4` and none adds it back
/// (`EngineMessageText`). The client then gets the Socket.IO packet text, one copy.
@Suite struct EngineMessageCopyTests {
    /// Records the storage address of each message the open method gets.
    final class AddressRecordingEngine: SocketEngine, @unchecked Sendable {
        let addresses = LockedValue<[UInt?]>([])

        override func parseEngineMessage(_ message: String) {
            let address = EngineMessageCopyTests.address(of: message)
            self.addresses.withLock { $0.append(address) }
            super.parseEngineMessage(message)
        }
    }

    static func address(of text: String) -> UInt? {
        var text = text
        return text.withUTF8 { UInt(bitPattern: $0.baseAddress) }
    }

    @Test func aWebSocketMessageReachesParseEngineMessageWithoutACopy() async throws {
        let transports = ScriptedEngineTransports()
        let client = EngineWriteBoundTests.RecordingClient()
        let engine = AddressRecordingEngine(
            client: client, url: URL(string: "http://example.invalid/")!,
            config: [.forceWebsockets(true)], transports: transports.transports)
        engine.connect()
        #expect(await self.eventually { transports.webSocket != nil })
        let webSocket = try #require(transports.webSocket)
        webSocket.push(.text(SocketEngineUpgradeOrderTests.openPacket))
        #expect(await self.eventually { engine.connected })

        // Longer than a small string's inline storage: it lives in a heap buffer.
        let frame = #"42["event",{"text":"a message long enough to be stored on the heap"}]"#
        let received = Self.address(of: frame)
        #expect(received != nil)
        webSocket.push(.text(frame))
        #expect(await self.eventually { engine.addresses.withLock { $0.count } == 1 })
        #expect(engine.addresses.withLock { $0 } == [received])
        engine.disconnect(reason: "done")
        withExtendedLifetime(client) {}
    }

    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return condition()
    }
}
