import Dispatch
import Foundation
import RealtimeIO
import RealtimeTime
import SocketIO
import TestSupport
import Testing

/// Socket.IO through `fault_proxy.py` in front of python-socketio (ping every second, 1 s
/// timeout): connections reset mid-frame, truncated, stalled past the ping timeout, dripped
/// one byte at a time, and the server gone for a while. Each run checks that the client comes
/// back with every namespace and its auth, that every status change is a valid transition,
/// that every ack resolves exactly once, and that nothing is left afterwards.
@Suite(.serialized, .needsNativeStack) struct SocketIOFaultInjectionTests {
    /// python-socketio and the proxy in front of it; a manager pointed at the proxy.
    struct Rig {
        let server: TestServer
        let proxy: FaultProxy
        let manager: SocketManager
        let baseline: ResourceSnapshot

        init(_ mode: TransportMode, extra: SocketIOClientConfiguration = []) async throws {
            self.server = try await TestServer.start("sio_server.py", arguments: ["--ping-interval", "1", "--ping-timeout", "1"])
            self.proxy = try await FaultProxy.start(targetPort: self.server.port)
            self.baseline = ResourceSnapshot.now()
            var config: SocketIOClientConfiguration = [
                .handleQueue(DispatchQueue(label: "sio-fault")), .reconnects(true), .reconnectAttempts(-1),
                .reconnectWait(1), .reconnectWaitMax(2), .randomizationFactor(0),
            ]
            for option in mode.options + extra { config.insert(option) }
            self.manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(self.proxy.port)")!, config: config)
        }

        func stop() {
            self.manager.disconnect()
            self.proxy.stop()
            self.server.stop()
        }
    }

    // MARK: Reconnection through every fault

    @Test(arguments: TransportMode.available)
    func reconnectsThroughEveryFaultAndRejoinsEveryNamespaceWithItsAuth(_ mode: TransportMode) async throws {
        let rig = try await Rig(mode)
        defer { rig.stop() }
        let root = rig.manager.defaultSocket
        let admin = rig.manager.socket(forNamespace: "/admin")
        let statuses = StatusLog(root, admin)
        // Each attempt with the reconnection it belongs to (one per `reconnect` event).
        let attempts = Recorder<(reconnection: Int, at: MonotonicInstant)>()
        let reconnections = Recorder<Void>()
        root.on(clientEvent: .reconnect) { _, _ in reconnections.append(()) }
        root.on(clientEvent: .reconnectAttempt) { _, _ in attempts.append((reconnections.count, .now)) }
        let handlerBaseline = (root.handlers.count, admin.handlers.count)

        root.connect(withPayload: ["token": "root-token"])
        admin.connect(withPayload: ["token": "admin-secret"])
        #expect(await Self.allConnected(root, admin))
        if mode == .upgrade {
            #expect(await ProcessResources.eventually { rig.manager.engine?.polling == false })
        }
        let big = String(repeating: "x", count: 4_000)

        var faults: [(String, () async throws -> Void)] = [
            (
                "reset mid-frame",
                {
                    try await rig.proxy.inject(.resetAfter(bytes: 300))
                    root.emit("echo", big)
                }
            ),
            (
                "truncated response",
                {
                    try await rig.proxy.inject(.truncateAfter(bytes: 250))
                    root.emit("echo", big)
                }
            ),
            ("stall past the ping timeout", { try await rig.proxy.inject(.stall) }),
            (
                "server gone",
                {
                    try await rig.proxy.inject(.down)
                    // At least two attempts are refused; they follow the backoff (wait 1 s).
                    let before = attempts.count
                    #expect(await attempts.wait(forCount: before + 2, timeout: 15))
                    try await rig.proxy.inject(.up)
                }
            ),
        ]
        faults.append(
            (
                "connection refused for a while",
                {
                    try await rig.proxy.inject(.refuse(seconds: 2))
                    try await rig.proxy.inject(.reset)
                }
            ))

        for (name, inject) in faults {
            let reconnected = EventWaiter(root, clientEvent: .reconnect)
            try await inject()
            #expect(await reconnected.value(timeout: 15) != nil, "\(mode) \(name): no reconnect")
            #expect(await Self.allConnected(root, admin), "\(mode) \(name): not back")
            try await rig.proxy.inject(.clear)
            try await rig.proxy.inject(.resume)
            // Both namespaces rejoined with the auth payload they first connected with.
            let rootAuth = await Self.ack(root, "auth_seen")
            let adminAuth = await Self.ack(admin, "auth_seen")
            #expect((rootAuth?.first as? [String: Any])?["token"] as? String == "root-token", "\(mode) \(name)")
            #expect((adminAuth?.first as? [String: Any])?["token"] as? String == "admin-secret", "\(mode) \(name)")
        }

        // A drip (one byte per 2 ms) slows the session down but does not break it.
        try await rig.proxy.inject(.drip(milliseconds: 2))
        let dripped = await Self.ack(root, "ack_me", ["drip"], timeout: 15)
        try await rig.proxy.inject(.resume)
        #expect(dripped?.first as? String == "drip")

        // Within one reconnection, attempts keep at least reconnectWait (1 s) apart; the
        // server-gone and refused faults each needed several.
        let recorded = attempts.values
        for (earlier, later) in zip(recorded, recorded.dropFirst()) where earlier.reconnection == later.reconnection {
            #expect(earlier.at.duration(to: later.at) >= .milliseconds(950), "\(mode): attempts \(recorded)")
        }
        #expect(Dictionary(grouping: recorded, by: \.reconnection).values.contains { $0.count >= 2 })

        #expect(statuses.invalidTransitions.isEmpty, "\(mode): \(statuses.invalidTransitions)")
        #expect(statuses.reachedConnectedCount(root) >= faults.count + 1)

        rig.manager.disconnect()
        #expect(await ProcessResources.eventually { root.status == .disconnected && admin.status == .disconnected })
        #expect(root.handlers.count == handlerBaseline.0 && admin.handlers.count == handlerBaseline.1)
        await Self.expectNothingLeft(rig, sockets: [root, admin], "\(mode)")
    }

    // MARK: Acks across repeated cuts

    @Test(arguments: TransportMode.available)
    func everyAckResolvesExactlyOnceAcrossRepeatedCuts(_ mode: TransportMode) async throws {
        let rig = try await Rig(mode)
        defer { rig.stop() }
        let socket = rig.manager.defaultSocket
        let statuses = StatusLog(socket)
        socket.connect()
        #expect(await Self.allConnected(socket))

        let total = 1_000
        let timeout = 3.0
        let results = Recorder<(Int, [Any])>()
        for index in 0..<total {
            socket.emitWithAck("ack_me", index).timingOut(after: timeout) { items in results.append((index, items)) }
            if index % 100 == 99 {
                // Let some of this batch through, then cut whatever is in flight.
                try await Task.sleep(.milliseconds(20))
                try await rig.proxy.inject(.reset)
                try await Task.sleep(.milliseconds(200))
            }
        }
        #expect(await results.wait(forCount: total, timeout: timeout + 30))
        // Nothing arrives twice, even late.
        try await Task.sleep(.milliseconds(500))
        let values = results.values
        var seen = [Int: Int]()
        var acked = 0
        for (index, items) in values {
            seen[index, default: 0] += 1
            if items.count == 1, items.first as? String == "NO ACK" { continue }
            #expect(items.first as? Int == index, "ack \(index) answered with \(items)")
            acked += 1
        }
        #expect(values.count == total)
        #expect(seen.count == total && seen.values.allSatisfy { $0 == 1 })
        // Most of them made it (a cut loses only what was in flight).
        #expect(acked > 0)
        print("[fault] \(mode): \(acked) of \(total) acks answered, \(total - acked) NO ACK across 10 cuts")
        #expect(statuses.invalidTransitions.isEmpty, "\(mode): \(statuses.invalidTransitions)")
        #expect(socket.pendingAckCount == 0)
        // The ack timer may outlive the last answered ack (lazy) by up to its timeout: it fires
        // once, finds nothing (nothing arrived twice above) and is not armed again.
        #expect(await ProcessResources.eventually { !socket.hasAckTimer }, "\(mode): ack timer left")

        rig.manager.disconnect()
        await Self.expectNothingLeft(rig, sockets: [socket], "\(mode)")
    }

    // MARK: Nothing left open

    /// Regression (found by the fault runs): the polling requests' keep-alive connections
    /// stayed in the engine's HTTP pool after `disconnect()` (and, after an upgrade, for the
    /// whole WebSocket session), so a disconnected manager kept sockets open, and a
    /// reconnection after a ping timeout sent its handshake over a pooled connection as dead as
    /// the one that timed out (20 s lost before a fresh connection was tried).
    @Test(arguments: TransportMode.available)
    func aDisconnectedManagerLeavesNoConnectionOpen(_ mode: TransportMode) async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let baseline = ResourceSnapshot.now()
        var config: SocketIOClientConfiguration = [.handleQueue(DispatchQueue(label: "sio-leak")), .reconnects(false)]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
        defer { manager.disconnect() }
        let socket = manager.defaultSocket
        socket.connect()
        #expect(await Self.allConnected(socket))
        #expect(await Self.ack(socket, "ack_me", ["x"])?.first as? String == "x")
        if mode == .upgrade {
            #expect(await ProcessResources.eventually { manager.engine?.polling == false })
            // Only the WebSocket stays open once polling is over (the last GET may still be
            // returning to the pool at the upgrade).
            #expect(
                await ProcessResources.eventually {
                    ResourceSnapshot.loopRegistrations <= baseline.registrations + 2
                })
        }
        manager.disconnect()
        #expect(
            await ProcessResources.eventually { ResourceSnapshot.now().isWithin(baseline) },
            "\(mode): left \(ResourceSnapshot.now()) after starting from \(baseline): \(ProcessResources.descriptorTargets)")
    }

    // MARK: Helpers

    static func allConnected(_ sockets: SocketIOClient..., timeout: Double = 20) async -> Bool {
        await Self.allConnected(sockets, timeout: timeout)
    }

    static func allConnected(_ sockets: [SocketIOClient], timeout: Double = 20) async -> Bool {
        await ProcessResources.eventually(timeout: .seconds(timeout)) {
            sockets.allSatisfy { $0.status == .connected }
        }
    }

    static func ack(
        _ socket: SocketIOClient, _ event: String, _ items: [SocketData] = [],
        timeout: Double = 5
    ) async -> [Any]? {
        let recorder = Recorder<[Any]>()
        socket.emitWithAck(event, with: items).timingOut(after: timeout) { recorder.append($0) }
        guard await recorder.wait(forCount: 1, timeout: timeout + 5) else { return nil }
        return recorder.values.first
    }

    /// After `manager.disconnect()`: no ack, ack timer, socket, descriptor or loop timer left.
    static func expectNothingLeft(_ rig: Rig, sockets: [SocketIOClient], _ label: String) async {
        for socket in sockets {
            #expect(socket.pendingAckCount == 0, "\(label): acks left")
            #expect(await ProcessResources.eventually { !socket.hasAckTimer }, "\(label): ack timer left")
        }
        let settled = await ProcessResources.eventually(timeout: .seconds(15)) {
            ResourceSnapshot.now().isWithin(rig.baseline)
        }
        #expect(settled, "\(label): left \(ResourceSnapshot.now()) after starting from \(rig.baseline): \(ProcessResources.descriptorTargets)")
        // The proxy agrees: no connection of the client is open (it may need a moment to see
        // the last close).
        var open = -1
        for _ in 0..<50 {
            open = (try? await rig.proxy.stats().open) ?? -1
            if open == 0 { break }
            try? await Task.sleep(.milliseconds(100))
        }
        #expect(open == 0, "\(label): proxy still sees \(open) connections")
    }
}

/// Open sockets, event-loop registrations and loop timers of this process.
struct ResourceSnapshot: CustomStringConvertible {
    var sockets: Int
    var registrations: Int
    var timers: Int

    static func now() -> ResourceSnapshot {
        ResourceSnapshot(
            sockets: ProcessResources.openSocketCount,
            registrations: Self.loopRegistrations, timers: Self.loopTimers)
    }

    /// The event loop's registrations and timers; 0 in the `REALTIME_NO_NATIVE_STACK` build,
    /// which has no event loop (and skips this suite).
    static var loopRegistrations: Int {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        EventLoopGroup.shared.registeredDescriptorCount
        #else
        0
        #endif
    }

    static var loopTimers: Int {
        #if canImport(Glibc) && !REALTIME_NO_NATIVE_STACK
        EventLoopGroup.shared.pendingTimerCount
        #else
        0
        #endif
    }

    func isWithin(_ baseline: ResourceSnapshot) -> Bool {
        self.sockets <= baseline.sockets && self.registrations <= baseline.registrations
            && self.timers <= baseline.timers
    }

    var description: String { "sockets=\(self.sockets) registered=\(self.registrations) timers=\(self.timers)" }
}

/// Every `statusChange` of some sockets, checked against the transitions a socket may make.
final class StatusLog: @unchecked Sendable {
    // `@unchecked Sendable`: `changes` is behind `lock`.
    private let lock = NSLock()
    private var changes: [ObjectIdentifier: [SocketIOStatus]] = [:]
    private var names: [ObjectIdentifier: String] = [:]

    /// The transitions upstream's client makes (`notConnected` only at the start).
    static let allowed: Set<[SocketIOStatus]> = [
        [.notConnected, .connecting], [.connecting, .connected], [.connected, .connecting],
        [.connecting, .disconnected], [.connected, .disconnected], [.disconnected, .connecting],
    ]

    init(_ sockets: SocketIOClient...) {
        for socket in sockets {
            let id = ObjectIdentifier(socket)
            self.changes[id] = [socket.status]
            self.names[id] = socket.nsp
            socket.on(clientEvent: .statusChange) { [self] items, _ in
                guard let status = items.first as? SocketIOStatus else { return }
                self.lock.withLock { self.changes[id, default: []].append(status) }
            }
        }
    }

    var invalidTransitions: [String] {
        self.lock.withLock {
            self.changes.flatMap { id, statuses in
                zip(statuses, statuses.dropFirst()).compactMap { from, to in
                    Self.allowed.contains([from, to]) ? nil : "\(self.names[id] ?? "?"): \(from) -> \(to)"
                }
            }
        }
    }

    func reachedConnectedCount(_ socket: SocketIOClient) -> Int {
        self.lock.withLock { self.changes[ObjectIdentifier(socket)]?.count(where: { $0 == .connected }) ?? 0 }
    }
}
