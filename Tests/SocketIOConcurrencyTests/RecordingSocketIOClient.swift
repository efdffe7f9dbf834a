import Dispatch
import EngineIOClient
import Foundation
import RealtimeSync
import RealtimeTime
import SocketIOConcurrency

@testable import SocketIO

/// A `SocketIOClient` whose outgoing calls are recorded and answered by the test, driven
/// through the public `handle*` / `did*` entry points (no network).
final class RecordingSocketIOClient: SocketIOClient, @unchecked Sendable {
    // @unchecked: the subclass adds only `recorded` (a LockedValue) and `let` configuration.

    /// What `connect(withPayload:timeoutAfter:withHandler:)` does besides recording.
    enum ConnectBehaviour: Sendable {
        /// Nothing: the test drives `didConnect` itself (or lets the call time out).
        case silent
        /// `didConnect(toNamespace:payload:)` soon after, on the handle queue.
        case connectSoon
        /// A `.error` client event with these items soon after (e.g. a CONNECT_ERROR).
        case failSoon(UncheckedItems)
    }

    /// What `disconnect()` does besides recording.
    enum DisconnectBehaviour: Sendable {
        /// upstream behaviour: the manager confirms with `didDisconnect(reason: "Namespace leave")`.
        case confirm
        /// Nothing is confirmed (a hung transport).
        case silent
    }

    struct Recorded {
        var connectPayloads: [[String: Any]?] = []
        var disconnectCalls = 0
        var emits: [(event: String, items: [Any])] = []
        var acksRequested: [(event: String, items: [Any])] = []
    }

    let recorded = LockedValue(UncheckedRecorded(Recorded()))
    let queue: DispatchQueue
    /// The socket's manager is a weak reference: the test socket keeps its manager alive.
    let owningManager: SocketManager
    let connectBehaviour: ConnectBehaviour
    let disconnectBehaviour: DisconnectBehaviour
    /// Whether `emit(_:with:completion:)` calls its completion (a write that completes).
    let completesWrites: Bool

    init(
        manager: SocketManager, queue: DispatchQueue, connect: ConnectBehaviour = .silent,
        disconnect: DisconnectBehaviour = .confirm, completesWrites: Bool = true
    ) {
        self.queue = queue
        self.owningManager = manager
        self.connectBehaviour = connect
        self.disconnectBehaviour = disconnect
        self.completesWrites = completesWrites
        super.init(manager: manager, nsp: "/")
    }

    var snapshot: Recorded { self.recorded.withLock { $0.value } }

    override func connect(withPayload payload: [String: Any]?, timeoutAfter: Double, withHandler handler: (() -> Void)?) {
        self.recorded.withLock { $0.value.connectPayloads.append(payload) }
        switch self.connectBehaviour {
        case .silent:
            break
        case .connectSoon:
            self.queue.asyncAfter(deadline: .now() + 0.02) { self.didConnect(toNamespace: "/", payload: nil) }
        case .failSoon(let items):
            self.queue.asyncAfter(deadline: .now() + 0.02) { self.handleClientEvent(.error, data: items.items) }
        }
    }

    override func disconnect() {
        self.recorded.withLock { $0.value.disconnectCalls += 1 }
        if case .confirm = self.disconnectBehaviour { super.disconnect() }
    }

    override func emit(_ event: String, with items: [SocketData], completion: (() -> Void)?) {
        self.recorded.withLock { $0.value.emits.append((event, items.map { $0 as Any })) }
        // Not connected or not representable: upstream's own reporting (`.error` event).
        let representable = (try? items.map { try $0.socketRepresentation() }) != nil
        guard self.status == .connected, representable else {
            super.emit(event, with: items, completion: completion)
            return
        }
        if self.completesWrites, let completion {
            let box = UncheckedItems([completion])
            self.queue.async { (box.items[0] as? () -> Void)?() }
        }
    }

    override func emitWithAck(_ event: String, with items: [SocketData]) -> OnAckCallback {
        self.recorded.withLock { $0.value.acksRequested.append((event, items.map { $0 as Any })) }
        return super.emitWithAck(event, with: items)
    }

    /// Answers the `number`th ack request (0-based) with `items`, once it was made.
    ///
    /// `OnAckCallback.timingOut` registers the ack callback right after `emitWithAck` returns,
    /// so after the request is recorded the answer is repeated for a second; the first one
    /// after registration is delivered, the others find no callback and do nothing.
    func answerAck(_ number: Int, with items: [Any]) {
        let box = UncheckedItems(items)
        Task {
            try await self.waitForAckRequests(number + 1)
            for _ in 0..<100 {
                self.queue.async { self.handleAck(number, data: box.items) }
                try await Task.sleep(.milliseconds(10))
            }
        }
    }

    /// Waits until `count` ack requests were recorded.
    func waitForAckRequests(_ count: Int) async throws {
        try await waitUntil { self.snapshot.acksRequested.count >= count }
    }
}

/// `[Any]` items handed to the handle queue.
struct UncheckedItems: @unchecked Sendable {
    // @unchecked: immutable test values, read on the handle queue only.
    let items: [Any]
    init(_ items: [Any]) { self.items = items }
}

/// The recorded calls (holding `[Any]`) inside the LockedValue.
struct UncheckedRecorded: @unchecked Sendable {
    // @unchecked: only reached through the LockedValue.
    var value: RecordingSocketIOClient.Recorded
    init(_ value: RecordingSocketIOClient.Recorded) { self.value = value }
}

/// A manager that is never connected, with its own serial handle queue, and a recording socket.
func makeRecordingSocket(
    connect: RecordingSocketIOClient.ConnectBehaviour = .silent,
    disconnect: RecordingSocketIOClient.DisconnectBehaviour = .confirm,
    completesWrites: Bool = true,
    timers: (any SocketTimerSource)? = nil
) -> (SocketManager, RecordingSocketIOClient) {
    let queue = DispatchQueue(label: "SocketIOConcurrencyTests.handleQueue")
    let url = URL(string: "http://127.0.0.1:9")!
    let config: SocketIOClientConfiguration = [.handleQueue(queue), .log(false), .reconnects(false)]
    let manager =
        timers.map { SocketManager(socketURL: url, config: config, timers: $0) }
        ?? SocketManager(socketURL: url, config: config)
    let socket = RecordingSocketIOClient(
        manager: manager, queue: queue, connect: connect,
        disconnect: disconnect, completesWrites: completesWrites)
    return (manager, socket)
}

/// Runs `body` on the queue and waits for it (also drains what was queued before).
func onQueue<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        queue.async { continuation.resume(returning: body()) }
    }
}

struct WaitTimedOut: Error {}

/// Polls `condition` every 5 ms for up to `seconds`.
func waitUntil(seconds: Double = 2, _ condition: @Sendable () -> Bool) async throws {
    let deadline = MonotonicInstant.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        guard MonotonicInstant.now < deadline else { throw WaitTimedOut() }
        try await Task.sleep(.milliseconds(5))
    }
}

/// Collects values from several threads.
final class Collector<Value: Sendable>: Sendable {
    private let values = LockedValue<[Value]>([])
    func append(_ value: Value) { self.values.withLock { $0.append(value) } }
    var all: [Value] { self.values.withLock { $0 } }
}
