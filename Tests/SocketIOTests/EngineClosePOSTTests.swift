import EngineIOClient
import Foundation
import RealtimeHTTP
import Testing

@testable import SocketIO

/// A reconnection that starts while a polling close is under way (`disconnect` then, at once,
/// `connect`, as the manager's first reconnection try does) still lets the close reach the
/// server: a server with connection state recovery keeps a session only for a close it saw.
/// Before, the new attempt cancelled the close `POST`, and the server learned of the close
/// only at its ping timeout (after the new CONNECT, which then found nothing to recover).
@Suite struct EngineClosePOSTTests {
    static let open = #"0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#

    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            try? await Task.sleep(.milliseconds(5))
        }
        return condition()
    }

    /// The ended attempt holds one close `POST` (or the `POST`s before it), none cancelled:
    /// once the transport lets them through, the server gets `bodies` and the close ends.
    func expectTheEndedAttemptDelivers(_ bodies: [String], engine: SocketEngine, transports: ScriptedEngineTransports) async {
        #expect(engine.closingPOSTCount == 1)
        transports.releasePOSTs()
        #expect(await self.eventually { transports.deliveredPOSTs == bodies })
        #expect(transports.cancelledPOSTs.isEmpty)
        #expect(await self.eventually { engine.closingPOSTCount == 0 })
    }

    /// An open polling engine whose `POST`s the transport holds.
    func openEngine(
        _ transports: ScriptedEngineTransports, client: SocketEngineClient = EngineWriteBoundTests.RecordingClient()
    ) async -> SocketEngine {
        let engine = SocketEngine(
            client: client, url: URL(string: "http://example.invalid/")!,
            config: [.forcePolling(true)], transports: transports.transports)
        engine.connect()
        transports.answerGET(Self.open)
        #expect(await self.eventually { engine.connected })
        transports.holdPOSTs()
        return engine
    }

    @Test func theClosePOSTInFlightIsNotCancelledByTheNextAttempt() async throws {
        let transports = ScriptedEngineTransports()
        let engine = await self.openEngine(transports)
        engine.disconnect(reason: "cut")
        #expect(await self.eventually { transports.heldPOSTs == 1 })
        engine.connect()
        await self.expectTheEndedAttemptDelivers(["1"], engine: engine, transports: transports)
        engine.disconnect(reason: "done")
    }

    /// The close packet still waited behind a `POST` in flight: that one finishes, then `1`
    /// goes in a `POST` of its own.
    @Test func aCloseWaitingBehindAPOSTGoesOnItsOwn() async throws {
        let transports = ScriptedEngineTransports()
        let engine = await self.openEngine(transports)
        try engine.send("a", withType: .message, withData: [])
        #expect(await self.eventually { transports.heldPOSTs == 1 })
        engine.disconnect(reason: "cut")
        engine.connect()
        await self.expectTheEndedAttemptDelivers(["4a", "1"], engine: engine, transports: transports)
        engine.disconnect(reason: "done")
    }

    /// A client that disconnects the engine and connects it again from inside the delivery of
    /// the message `cut`: while the engine's turn is still being performed, as a handler on the
    /// delivering thread (or any other thread at that moment) would.
    final class ReconnectingClient: QuietEngineClient, @unchecked Sendable {
        // `@unchecked Sendable`: `engine` is set once, before the engine starts, and only read
        // after; `closes` has its own lock.
        weak var engine: SocketEngine?
        let closes = Recorder<String>()
        func parseEngineMessage(_ msg: String) {
            guard msg == "cut", let engine = self.engine else { return }
            engine.disconnect(reason: "cut")
            engine.connect()
        }
        func engineDidClose(reason: String) { self.closes.append(reason) }
    }

    /// `disconnect` and `connect` called while the engine's actions are still being performed
    /// (the close's `POST` not started yet, a fresh poll not either): the close's actions, its
    /// report and the new attempt are performed in that order, so the new attempt finds the
    /// close `POST` under way and hands it over instead of cutting it. Before, the report and
    /// the reset came first, and the close `POST`, started later for an attempt already gone,
    /// was cancelled at once (a CI run saw the recovery test's server time out the session).
    @Test func aCloseWhileTheEngineIsStillPerformingReachesTheServer() async throws {
        let transports = ScriptedEngineTransports()
        let client = ReconnectingClient()
        let engine = await self.openEngine(transports, client: client)
        client.engine = engine
        transports.answerGET("4cut")
        #expect(await self.eventually { client.closes.values == ["cut"] })
        #expect(await self.eventually { transports.heldPOSTs == 1 })
        await self.expectTheEndedAttemptDelivers(["1"], engine: engine, transports: transports)
        engine.disconnect(reason: "done")
    }

    /// Every polling request carries its target as the driver built it (the native client
    /// writes it without reading it back out of the URL), and it is the URL's own: the
    /// handshake, the polls and the `POST`s, each with its own `t`.
    @Test func pollingRequestsCarryTheTargetOfTheirURL() async throws {
        let transports = ScriptedEngineTransports()
        let engine = await self.openEngine(transports)
        transports.releasePOSTs()
        try engine.send("a", withType: .message, withData: [])
        #expect(await self.eventually { transports.deliveredPOSTs == ["4a"] })
        let requests = transports.requests
        #expect(requests.count >= 3)
        for (url, target) in requests {
            #expect(target != nil, "\(url)")
            #expect(target == url.httpRequestTarget, "\(url)")
        }
        #expect(Set(requests.map(\.url)).count == requests.count)
        engine.disconnect(reason: "done")
    }

    @Test func aRequestForgetsItsTargetWhenItsURLChanges() {
        var request = HTTPClientRequest(url: URL(string: "http://a.invalid/one?x=1")!)
        request.target = "/one?x=1"
        request.url = URL(string: "http://a.invalid/two")!
        #expect(request.target == nil)
    }
}
