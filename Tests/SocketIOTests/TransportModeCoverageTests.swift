import Foundation
import RealtimeHTTP
import TestSupport
import Testing

@testable import SocketIO

/// The loopback tests parametrized by ``TransportMode/available`` run their WebSocket and
/// upgrade cases only where the default transport can open a WebSocket here. In the
/// `REALTIME_NO_NATIVE_STACK` build those cases are absent, not failed: the skipped test below
/// says so in the run, and the other one checks that the harness's modes follow the transport
/// `.automatic` really gives an engine in this build.
@Suite struct TransportModeCoverageTests {
    @Test func theLoopbackModesFollowTheDefaultTransport() throws {
        let options = SocketEngineOptions(url: URL(string: "http://chat.example/")!)
        let transports = try #require(SocketEngine.Transport.automatic.makeTransports(options: options))
        // Only the native WebSocket client opens a WebSocket on Linux (URLSession's cannot).
        let opensWebSocketHere = transports.webSocket is WebSocketClient
        #expect(TransportMode.available.contains(.polling))
        #expect(TransportMode.available.contains(.webSocket) == opensWebSocketHere)
        #expect(TransportMode.available.contains(.upgrade) == opensWebSocketHere)
    }

    @Test(.needsDefaultWebSocket)
    func everyLoopbackTestAlsoRunsOverWebSocketAndTheUpgrade() {
        #expect(TransportMode.available == [.polling, .webSocket, .upgrade])
    }
}
