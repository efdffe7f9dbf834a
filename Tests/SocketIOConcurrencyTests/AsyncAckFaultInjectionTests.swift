import Dispatch
import Foundation
import RealtimeIO
import RealtimeTime
import TestSupport
import Testing

@testable import SocketIOConcurrency

/// `emitWithAck` (async) through `fault_proxy.py` in front of python-socketio: 1,000 acks in
/// flight while the connection is reset again and again. Every call returns exactly once,
/// with its own ack or with a typed timeout / disconnect / not-connected error, and nothing
/// the calls registered (handlers, acks, timers, operations) is left afterwards.
@Suite(.serialized) struct AsyncAckFaultInjectionTests {
    enum Outcome: Sendable, Equatable {
        case acked
        case timedOut, disconnected, notConnected
        case other(String)
    }

    /// Polling only in the `REALTIME_NO_NATIVE_STACK` build (URLSession on Linux has no WebSocket).
    static let transports = BuildConfiguration.noNativeStack ? ["polling"] : ["websocket", "polling"]

    /// Descriptors the manager's engine keeps while the manager lives: none on the native stack
    /// (idle connections close), the per-engine URLSession's libcurl multi handle (three
    /// descriptors on Linux) in the `REALTIME_NO_NATIVE_STACK` build.
    static let engineDescriptors = BuildConfiguration.noNativeStack ? 3 : 0

    @Test(arguments: Self.transports)
    func everyAwaitedAckReturnsExactlyOnceAcrossRepeatedCuts(_ name: String) async throws {
        let transport: SocketIOClientOption = name == "polling" ? .forcePolling(true) : .forceWebsockets(true)
        let server = try await TestServer.start("sio_server.py", arguments: ["--ping-interval", "1", "--ping-timeout", "1"])
        defer { server.stop() }
        let proxy = try await FaultProxy.start(targetPort: server.port)
        defer { proxy.stop() }
        let sockets = ProcessResources.openSocketCount
        let operations = PendingSocketOperationCount.current
        let manager = SocketManager(
            socketURL: URL(string: "http://127.0.0.1:\(proxy.port)")!,
            config: [
                transport, .handleQueue(DispatchQueue(label: "async-ack-fault")), .reconnects(true),
                .reconnectWait(1), .reconnectWaitMax(1), .randomizationFactor(0),
            ])
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        try await socket.connect()
        let handlers = socket.handlers.count

        let total = 1_000
        let outcomes = try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            for index in 0..<total {
                group.addTask {
                    do throws(SocketIOClient.Error) {
                        let payload = try await socket.emitWithAck("ack_me", index, timeout: 3)
                        return (index, payload == .int(index) ? .acked : .other("wrong ack \(payload)"))
                    } catch {
                        switch error {
                        case .ackTimedOut: return (index, .timedOut)
                        case .disconnected: return (index, .disconnected)
                        case .notConnected: return (index, .notConnected)
                        default: return (index, .other("\(error)"))
                        }
                    }
                }
                if index % 100 == 99 {
                    try await Task.sleep(.milliseconds(20))
                    try await proxy.inject(.reset)
                    try await Task.sleep(.milliseconds(200))
                }
            }
            var all: [(Int, Outcome)] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        let indices = outcomes.map(\.0)
        #expect(indices.count == total && Set(indices).count == total)
        let others = outcomes.filter { if case .other = $0.1 { true } else { false } }
        #expect(others.isEmpty, "\(others.prefix(5))")
        let acked = outcomes.count { $0.1 == .acked }
        #expect(acked > 0)
        print(
            "[fault] async acks \(name): \(acked) acked, "
                + "\(outcomes.count { $0.1 == .timedOut }) timed out, \(outcomes.count { $0.1 == .disconnected }) disconnected, "
                + "\(outcomes.count { $0.1 == .notConnected }) not connected")

        // Nothing the calls registered is left.
        #expect(socket.pendingAckCount == 0)
        #expect(socket.handlers.count == handlers)
        #expect(
            await ProcessResources.eventually { PendingSocketOperationCount.current == operations },
            "operations left: \(PendingSocketOperationCount.current - operations)")
        manager.disconnect()
        #expect(await ProcessResources.eventually { !socket.hasAckTimer })
        // Sockets, not every descriptor: Dispatch opens its eventfd and timer descriptors once,
        // lazily, the first time a queue of a new kind runs (ProcessResources.openSocketCount).
        #expect(
            await ProcessResources.eventually(timeout: .seconds(15)) {
                ProcessResources.openSocketCount <= sockets + Self.engineDescriptors
            }, "sockets \(ProcessResources.openSocketCount) > \(sockets): \(ProcessResources.descriptorTargets)")
    }
}
