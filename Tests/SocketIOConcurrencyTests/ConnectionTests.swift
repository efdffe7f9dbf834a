import EngineIOClient
import Foundation
import RealtimeSync
import RealtimeTime
import SocketIO
import SocketIOConcurrency
import Testing

/// `connect(withPayload:timeout:)` and `disconnect(timeout:)`.
@Suite struct ConnectionTests {
    @Test func connectWaitsForTheNamespaceAndPassesThePayload() async throws {
        let (_, socket) = makeRecordingSocket(connect: .connectSoon)
        let baseline = socket.handlers.count
        try await socket.connect(withPayload: ["token": "t", "n": 2], timeout: 2)
        #expect(socket.status == .connected)
        let payloads = socket.snapshot.connectPayloads
        #expect(payloads.count == 1)
        #expect(try SocketIOClient.Payload(socketValue: payloads.first as Any) == ["token": "t", "n": 2])
        #expect(socket.handlers.count == baseline)
    }

    @Test func connectReturnsAtOnceWhenAlreadyConnected() async throws {
        let (_, socket) = makeRecordingSocket()
        socket.didConnect(toNamespace: "/", payload: nil)
        try await socket.connect(timeout: 0.5)
        #expect(socket.snapshot.connectPayloads.isEmpty)
    }

    @Test func connectTimesOutAbandonsTheAttemptAndLeavesNoHandler() async throws {
        let (_, socket) = makeRecordingSocket(connect: .silent)
        let baseline = socket.handlers.count
        await #expect(throws: SocketIOClient.Error.connectTimedOut(timeout: 0.05)) {
            try await socket.connect(timeout: 0.05)
        }
        #expect(socket.handlers.count == baseline)
        #expect(socket.snapshot.disconnectCalls == 1)
    }

    /// The timeout is a timer of the manager's one source, cancelled when the operation ends
    /// otherwise: nothing of a finished connect or disconnect stays scheduled.
    @Test func timeoutsComeFromTheManagersTimerSourceAndEndWithTheOperation() async throws {
        let timers = CountingTimerSource()
        let (_, socket) = makeRecordingSocket(connect: .connectSoon, timers: timers)
        try await socket.connect(timeout: 30)
        #expect(timers.scheduled == 1)
        #expect(timers.pending == 0)
        try await socket.disconnect(timeout: 30)
        #expect(timers.scheduled == 2)
        #expect(timers.pending == 0)

        // And the timeout itself fires from that source.
        let (_, silent) = makeRecordingSocket(connect: .silent, timers: timers)
        await #expect(throws: SocketIOClient.Error.connectTimedOut(timeout: 0.05)) {
            try await silent.connect(timeout: 0.05)
        }
        #expect(timers.scheduled == 3)
        #expect(timers.fired == 1)
    }

    @Test func connectErrorCarriesTheServersMessage() async throws {
        let refusal = UncheckedItems([["message": "unauthorized", "data": ["reason": "token"]]])
        let (_, socket) = makeRecordingSocket(connect: .failSoon(refusal))
        await #expect(throws: SocketIOClient.Error.clientError(event: "connect", message: "unauthorized", source: .socketIO)) {
            try await socket.connect(timeout: 2)
        }
        #expect(socket.snapshot.disconnectCalls == 1)
        #expect(socket.status == .disconnected)
    }

    @Test func cancellingConnectThrowsCancelledAndLeavesNoHandler() async throws {
        let (_, socket) = makeRecordingSocket(connect: .silent)
        let baseline = socket.handlers.count
        let attempt = Task { () async throws -> Void in try await socket.connect(timeout: 5) }
        try await waitUntil { socket.snapshot.connectPayloads.count == 1 }
        attempt.cancel()
        await #expect(throws: SocketIOClient.Error.cancelled) { try await attempt.value }
        #expect(socket.handlers.count == baseline)
        #expect(socket.snapshot.disconnectCalls == 1)
    }

    @Test func connectInAnAlreadyCancelledTaskDoesNothing() async throws {
        let (_, socket) = makeRecordingSocket(connect: .connectSoon)
        let attempt = Task { () async throws -> Void in
            withUnsafeCurrentTask { $0?.cancel() }
            try await socket.connect(timeout: 1)
        }
        await #expect(throws: SocketIOClient.Error.cancelled) { try await attempt.value }
        #expect(socket.snapshot.connectPayloads.isEmpty)
    }

    @Test func disconnectWaitsForConfirmation() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .confirm)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        try await socket.disconnect(timeout: 1)
        #expect(socket.status == .disconnected)
        #expect(socket.snapshot.disconnectCalls == 1)
        #expect(socket.handlers.count == baseline)
    }

    @Test func disconnectConfirmedLaterByTheDisconnectEvent() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let queue = socket.queue
        queue.asyncAfter(deadline: .now() + 0.05) { socket.didDisconnect(reason: "Got Disconnect") }
        try await socket.disconnect(timeout: 2)
        #expect(socket.status == .disconnected)
    }

    @Test func disconnectConfirmedByTheStatusFallback() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let queue = socket.queue
        queue.asyncAfter(deadline: .now() + 0.05) {
            // A status change to .disconnected without a `.disconnect` event.
            socket.handleClientEvent(.statusChange, data: [SocketIOStatus.disconnected, SocketIOStatus.disconnected.rawValue])
        }
        try await socket.disconnect(timeout: 2)
        #expect(socket.handlers.count == baseline)
    }

    @Test func disconnectTimesOutWhenNothingConfirms() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        await #expect(throws: SocketIOClient.Error.disconnectTimedOut(timeout: 0.05)) {
            try await socket.disconnect(timeout: 0.05)
        }
        #expect(socket.handlers.count == baseline)
    }

    @Test func disconnectReturnsAtOnceWhenNotConnected() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        try await socket.disconnect(timeout: 0.05)
        #expect(socket.snapshot.disconnectCalls == 0)
    }

    @Test func cancellingDisconnectThrowsCancelledAndLeavesNoHandler() async throws {
        let (_, socket) = makeRecordingSocket(disconnect: .silent)
        socket.didConnect(toNamespace: "/", payload: nil)
        let baseline = socket.handlers.count
        let attempt = Task { () async throws -> Void in try await socket.disconnect(timeout: 5) }
        try await waitUntil { socket.snapshot.disconnectCalls == 1 }
        attempt.cancel()
        await #expect(throws: SocketIOClient.Error.cancelled) { try await attempt.value }
        #expect(socket.handlers.count == baseline)
    }
}

/// The default timer source, counting what is scheduled, still pending, and fired.
final class CountingTimerSource: SocketTimerSource, @unchecked Sendable {
    // `@unchecked Sendable`: the counters are behind `lock`.
    private let lock = NSLock()
    private var counts = (scheduled: 0, pending: 0, fired: 0)

    var scheduled: Int { self.lock.withLock { self.counts.scheduled } }
    var pending: Int { self.lock.withLock { self.counts.pending } }
    var fired: Int { self.lock.withLock { self.counts.fired } }

    var now: MonotonicInstant { .now }

    func schedule(at deadline: MonotonicInstant, _ body: @escaping @Sendable () -> Void) -> SocketTimer {
        // The first of firing and cancelling settles the timer.
        let settled = LockedValue(false)
        let settle = { @Sendable () -> Bool in
            settled.withLock { settled -> Bool in
                defer { settled = true }
                return !settled
            }
        }
        self.lock.withLock {
            self.counts.scheduled += 1
            self.counts.pending += 1
        }
        let timer = EventLoopTimerSource.shared.schedule(at: deadline) {
            guard settle() else { return }
            self.lock.withLock {
                self.counts.pending -= 1
                self.counts.fired += 1
            }
            body()
        }
        return SocketTimer(cancel: {
            timer.cancel()
            guard settle() else { return }
            self.lock.withLock { self.counts.pending -= 1 }
        })
    }
}
