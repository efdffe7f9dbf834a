import Dispatch
import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import SocketIO

/// Events python-socketio emits from its connect handler arrive before its CONNECT packet:
/// the socket's `NamespaceStateMachine` keeps up to 1,000 of them and delivers them in order
/// just before `connect` (socket.io-client's `receiveBuffer` order); one more leaves the namespace.
@Suite(.serialized, .needsDefaultWebSocket) struct SocketIOEarlyEventsLoopbackTests {
    @Test func thousandEarlyEventsAreDeliveredInOrderBeforeConnect() async throws {
        let harness = try await LoopbackHarness(.webSocket)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        let order = Recorder<String>()
        socket.on(clientEvent: .connect) { _, _ in order.append("connect") }
        socket.on("welcome") { _, _ in order.append("welcome") }
        socket.on("burst") { data, _ in order.append("\(data.first as? Int ?? -1)") }

        // "welcome" plus 999 bursts: exactly the bound.
        #expect(await harness.connect(socket, payload: ["burst": 999]).connected != nil)
        #expect(await order.wait(forCount: 1_001))
        #expect(order.values == ["welcome"] + (0..<999).map(String.init) + ["connect"])
        #expect(socket.status == .connected)
    }

    @Test func oneEarlyEventTooManyLeavesTheNamespace() async throws {
        let harness = try await LoopbackHarness(.webSocket)
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        let seen = Recorder<String>()
        socket.on(clientEvent: .connect) { _, _ in seen.append("connect") }
        socket.on("burst") { _, _ in seen.append("burst") }
        let disconnected = EventWaiter(socket, clientEvent: .disconnect)

        socket.connect(withPayload: ["burst": 1_000])
        #expect(await disconnected.value()?.first as? String == "Too many packets before connect")
        #expect(socket.status == .disconnected)
        // The server's late CONNECT packet is ignored: no connect, nothing delivered.
        try await Task.sleep(.milliseconds(200))
        drain(harness.queue)
        #expect(seen.count == 0)
        #expect(socket.status == .disconnected)
    }
}
