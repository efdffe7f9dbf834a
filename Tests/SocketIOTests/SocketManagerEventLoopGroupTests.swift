import Dispatch
import EngineIOClient
import Foundation
import RealtimeIO
import TestSupport
import Testing

@testable import SocketIO

/// `.eventLoopGroup`: each manager takes one loop of the group at `init`, and its session
/// lives there: its engines' connections, the drivers' tasks and its timers (issue 36).
@Suite(.serialized) struct SocketManagerEventLoopGroupTests {
    @Test(.enabled(if: !BuildConfiguration.noNativeStack, "the group applies to the native stack; this build has none"))
    func managersSpreadOverTheGroupAndKeepTheirSessionOnOneLoop() async throws {
        let group = EventLoopGroup(loopCount: 2)
        let url = URL(string: "http://127.0.0.1:1/")!
        let first = SocketManager(socketURL: url, config: [.eventLoopGroup(group), .reconnects(false)], transport: .native)
        let second = SocketManager(socketURL: url, config: [.eventLoopGroup(group), .reconnects(false)], transport: .native)
        #expect(first.eventLoop !== second.eventLoop)
        var engineLoops: [EventLoop] = []
        for manager in [first, second] {
            #expect((manager.timers as? EventLoopTimerSource)?.eventLoop === manager.eventLoop)
            manager.connect()
            let engine = try #require(manager.engine as? SocketEngine)
            #expect(engine.transports?.eventLoop === manager.eventLoop)
            engineLoops += engine.transports?.eventLoop.map { [$0] } ?? []
            manager.disconnect()
        }
        #expect(engineLoops.count == 2 && engineLoops[0] !== engineLoops[1])
        // Making an engine does not move the group's turn on: a manager made after another
        // one's engine still takes the other loop.
        let third = SocketManager(socketURL: url, config: [.eventLoopGroup(group), .reconnects(false)], transport: .native)
        third.connect()
        let fourth = SocketManager(socketURL: url, config: [.eventLoopGroup(group), .reconnects(false)], transport: .native)
        #expect(third.eventLoop !== fourth.eventLoop)
        third.disconnect()
        // A manager given no group takes a loop of the process default.
        let plain = SocketManager(socketURL: url, config: [.reconnects(false)])
        #expect(!group.contains(plain.eventLoop))
        await group.shutdown()
    }

    /// A session on a group of its own works against python-socketio, and when the group shuts
    /// down the socket hears of it (a disconnect), instead of waiting on a loop that is gone.
    @Test(.enabled(if: !BuildConfiguration.noNativeStack, "the group applies to the native stack; this build has none"))
    func aSessionOnItsOwnGroupEndsWhenTheGroupShutsDown() async throws {
        let group = EventLoopGroup(loopCount: 1)
        let harness = try await LoopbackHarness(.webSocket, extra: [.eventLoopGroup(group)])
        defer { harness.stop() }
        let socket = harness.manager.defaultSocket
        #expect(await harness.connect(socket).connected != nil)
        let answer = await harness.ack(socket, "ack_me", ["on a loop of its own"])
        #expect(answer?.first as? String == "on a loop of its own")

        let disconnected = EventWaiter(socket, clientEvent: .disconnect)
        await group.shutdown()
        #expect(await disconnected.value(timeout: 10) != nil)
        #expect(socket.status != .connected)
    }
}

extension EventLoopGroup {
    /// Whether `loop` is one of this group's.
    fileprivate func contains(_ loop: EventLoop) -> Bool {
        (0..<self.loopCount).contains { _ in self.next() === loop }
    }
}
