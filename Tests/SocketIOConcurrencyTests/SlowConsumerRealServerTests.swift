import Dispatch
import Foundation
import SocketIOConcurrency
import TestSupport
import Testing

/// A slow `for await` against python-socketio (`Tests/Servers/sio_server.py`'s `flood`): every
/// event arrives, in order, because the stream holds the connection's reading back instead of
/// dropping (the server feels TCP backpressure), over WebSocket and polling.
@Suite(.serialized, TestTimeLimit.minutes(3)) struct SlowConsumerRealServerTests {
    typealias Mode = AuthProviderRealServerTests.Mode

    func connectedSocket(_ server: TestServer, _ mode: Mode) async throws -> (SocketManager, SocketIOClient) {
        var config: SocketIOClientConfiguration = [
            .log(false), .reconnects(false), .handleQueue(DispatchQueue(label: "SlowConsumerRealServerTests")),
        ]
        for option in mode.options { config.insert(option) }
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
        try await manager.defaultSocket.connect(timeout: 10)
        return (manager, manager.defaultSocket)
    }

    /// Asks the server for `total` events and reads them from `items` at 1 ms each: what
    /// arrived, and whether the manager paused its reading meanwhile.
    func floodSlowly<Items: AsyncSequence>(
        _ socket: SocketIOClient, _ manager: SocketManager, _ items: Items, total: Int
    ) async throws -> (received: [Int], sawReadingPaused: Bool) where Items.Element == SocketIOClient.Payload {
        await socket.emit("flood", total)
        var received: [Int] = []
        var sawReadingPaused = false
        for try await item in items {
            received.append(item.intValue ?? -1)
            if received.count == 1 {
                // The first event is held until the stream's backlog stops the reading (the
                // server sends more than the 256 a stream keeps before that), at most 20 s: on a
                // loaded machine the events can arrive slower than 1 ms apart, and a consumer
                // that never falls behind never pauses anything.
                for _ in 0..<4_000 where !manager.handleQueueBacklog.readingPaused {
                    try await Task.sleep(nanoseconds: 5_000_000)
                }
            }
            sawReadingPaused = sawReadingPaused || manager.handleQueueBacklog.readingPaused
            if received.count == total { break }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        return (received, sawReadingPaused)
    }

    /// The loop: 1 ms per event, 2,000 events. It lost 85% of them with the old
    /// default (the newest 100 kept); now the manager stops reading while 256 wait.
    @Test(arguments: Mode.available.filter { $0 != .upgrade })
    func aSlowLoopReceivesEveryEventInOrder(_ mode: Mode) async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let (manager, socket) = try await self.connectedSocket(server, mode)
        defer { manager.disconnect() }

        let total = 2_000
        let items = socket.on("flood_item")
        let (received, sawReadingPaused) = try await self.floodSlowly(socket, manager, items, total: total)
        #expect(received == Array(0..<total))
        #expect(sawReadingPaused, "the stream never held the reading back")
        #expect(items.droppedCount == 0)
        // Once the loop caught up and left, the connection reads again and still answers.
        #expect(!manager.handleQueueBacklog.readingPaused)
        #expect(try await socket.emitWithAck("ack_me", "still here", timeout: 10) == "still here")
    }

    /// The same loop over a socket and a manager of subclasses that override upstream's open
    /// methods (and call `super`): their packets take the open methods on `handleQueue`, and the
    /// stream still holds the reading back and gets every event, in order.
    @Test func subclassesHoldTheReadingBackToo() async throws {
        final class CountingManager: SocketManager, @unchecked Sendable {
            let messages = LockedCounter()
            override func parseEngineMessage(_ msg: String) {
                self.messages.increment()
                super.parseEngineMessage(msg)
            }
        }
        final class CountingSocket: SocketIOClient, @unchecked Sendable {
            let events = LockedCounter()
            override func handleEvent(_ event: String, data: [Any], isInternalMessage: Bool, withAck ack: Int = -1) {
                if event == "flood_item" { self.events.increment() }
                super.handleEvent(event, data: data, isInternalMessage: isInternalMessage, withAck: ack)
            }
        }
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let mode: Mode = Mode.available.contains(.webSocket) ? .webSocket : .polling
        var config: SocketIOClientConfiguration = [
            .log(false), .reconnects(false), .handleQueue(DispatchQueue(label: "SlowConsumerRealServerTests.subclass")),
        ]
        for option in mode.options { config.insert(option) }
        let manager = CountingManager(socketURL: URL(string: "http://127.0.0.1:\(server.port)")!, config: config)
        let socket = CountingSocket(manager: manager, nsp: "/")
        manager.nsps["/"] = socket
        try await socket.connect(timeout: 10)
        defer { manager.disconnect() }

        let total = 1_000
        let items = socket.on("flood_item")
        let (received, sawReadingPaused) = try await self.floodSlowly(socket, manager, items, total: total)
        #expect(received == Array(0..<total))
        #expect(sawReadingPaused, "the stream never held the reading back")
        #expect(items.droppedCount == 0)
        // Every event went through both overrides.
        #expect(socket.events.value == total)
        #expect(manager.messages.value >= total)
        #expect(try await socket.emitWithAck("ack_me", "still here", timeout: 10) == "still here")
    }

    /// Two streams of one event, one fast and one slow: the slow one governs (as with TCP), and
    /// both get every event.
    @Test func theSlowestOfTwoStreamsGovernsAndBothGetEverything() async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let (manager, socket) = try await self.connectedSocket(server, Mode.available.contains(.webSocket) ? .webSocket : .polling)
        defer { manager.disconnect() }

        let total = 1_000
        let fast = socket.on("flood_item")
        let slow = socket.on("flood_item")
        let fastLoop = Task {
            var values: [Int] = []
            for try await item in fast {
                values.append(item.intValue ?? -1)
                if values.count == total { break }
            }
            return values
        }
        await socket.emit("flood", total)
        var slowValues: [Int] = []
        for try await item in slow {
            slowValues.append(item.intValue ?? -1)
            if slowValues.count == total { break }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(slowValues == Array(0..<total))
        #expect(try await fastLoop.value == Array(0..<total))
    }

    /// A loop that awaits an ack for each event does not wait on itself: while its stream is
    /// behind (reading paused), the awaited ack lets the reading go on.
    @Test func aLoopThatAwaitsAnAckPerEventDoesNotWaitOnItself() async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let (manager, socket) = try await self.connectedSocket(server, Mode.available.contains(.webSocket) ? .webSocket : .polling)
        defer { manager.disconnect() }

        let total = 600
        let items = socket.on("flood_item")
        await socket.emit("flood", total)
        // Let the stream fall behind first: 600 events, 256 waiting stop the reading.
        try await waitUntil(seconds: 20) { manager.handleQueueBacklog.readingPaused }
        var received = 0
        for try await item in items {
            let answer = try await socket.emitWithAck("ack_me", item, timeout: 10)
            #expect(answer == item)
            received += 1
            if received == total { break }
        }
        #expect(received == total)
    }

    /// While an ack is awaited, a stream that fell behind does not stop the reading, but one
    /// 4,096 behind does: a server that withholds an ack while it floods a stream cannot grow
    /// the stream until the ack's timeout. Nothing is lost: every event arrives, in order.
    @Test func aStreamFarBehindHoldsTheReadingEvenWhileAnAckIsAwaited() async throws {
        let server = try await TestServer.start("sio_server.py")
        defer { server.stop() }
        let (manager, socket) = try await self.connectedSocket(server, Mode.available.contains(.webSocket) ? .webSocket : .polling)
        defer { manager.disconnect() }

        let total = 12_000
        let items = socket.on("flood_item")
        // An event the server has no handler for: its ack never comes, so it is awaited for
        // the whole test.
        let unanswered = Task { try? await socket.emitWithAck("no_handler_for_this", timeout: 60) }
        defer { unanswered.cancel() }
        try await waitUntil(seconds: 10) { socket.pendingAckCount == 1 }
        await socket.emit("flood", total)
        // Nothing is read from the stream: past 4,096 values the reading stops anyway.
        try await waitUntil(seconds: 30) { manager.handleQueueBacklog.readingPaused }
        var received: [Int] = []
        for try await item in items {
            received.append(item.intValue ?? -1)
            if received.count == total { break }
        }
        #expect(received == Array(0..<total))
    }
}

/// A counter the overrides of a test's subclasses bump from `handleQueue` and the reading thread.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() {
        self.lock.lock()
        self.count += 1
        self.lock.unlock()
    }

    var value: Int {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.count
    }
}
