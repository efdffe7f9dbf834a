import Testing
import TestSupport

/// The loopback tests parametrized by ``TransportMode/available`` run their WebSocket and
/// upgrade cases only where the default transport can open a WebSocket. In the
/// `REALTIME_NO_NATIVE_STACK` build those cases are absent, not failed; this test is skipped
/// there with the reason, so the run says what it leaves out.
@Suite struct TransportModeCoverageTests {
    @Test(.needsDefaultWebSocket)
    func everyLoopbackTestAlsoRunsOverWebSocketAndTheUpgrade() {
        #expect(TransportMode.available == [.polling, .webSocket, .upgrade])
    }
}
