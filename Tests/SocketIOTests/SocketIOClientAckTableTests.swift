import Dispatch
import EngineIOClient
import Foundation
import RealtimeTime
import TestSupport
import Testing

@testable import SocketIO

/// Acks through the socket's `AckTable` (one wake-up per socket) and the namespace machine's
/// bound on events before the CONNECT acknowledgement, through a ``TestEngine``.
@Suite(.tearsDownTestEngines) struct SocketIOClientAckTableTests {
    func connectedSocket(timers: (any SocketTimerSource)? = nil) -> (SocketManager, TestEngine, SocketIOClient, DispatchQueue) {
        connectedTestSocket(timers: timers)
    }

    /// Deadlines come from the manager's timer source: the test moves its time, so the check
    /// "a fired, b not yet" is exact instead of racing real milliseconds.
    @Test func timeoutsCallNoAckAndZeroNeverTimesOut() {
        let timers = ManualTimerSource()
        let (_, engine, socket, queue) = connectedSocket(timers: timers)
        let answers = Recorder<String>()
        socket.emitWithAck("never").timingOut(after: 0) { answers.append("never:\($0.first as? String ?? "")") }
        #expect(!socket.hasAckTimer)
        socket.emitWithAck("a").timingOut(after: 0.05) { answers.append("a:\($0.first as? String ?? "")") }
        socket.emitWithAck("b").timingOut(after: 1.5) { answers.append("b:\($0.first as? String ?? "")") }
        #expect(socket.hasAckTimer)
        #expect(socket.pendingAckCount == 3)
        #expect(engine.writes.suffix(3) == [#"20["never"]"#, #"21["a"]"#, #"22["b"]"#])
        #expect(timers.scheduledCount == 1)  // one wake-up however many acks wait

        timers.advance(by: .milliseconds(49))
        drain(queue)
        #expect(answers.values.isEmpty)
        timers.advance(by: .milliseconds(1))
        drain(queue)
        #expect(answers.values == ["a:NO ACK"])
        #expect(socket.hasAckTimer)  // the one wake-up moved on to b's deadline
        #expect(timers.scheduledCount == 1)
        timers.advance(by: .milliseconds(1_449))
        drain(queue)
        #expect(answers.values == ["a:NO ACK"])
        timers.advance(by: .milliseconds(1))
        drain(queue)
        #expect(answers.values == ["a:NO ACK", "b:NO ACK"])
        #expect(socket.pendingAckCount == 1)
        #expect(!socket.hasAckTimer)
        #expect(timers.scheduledCount == 0)

        socket.handleAck(0, data: ["late"])
        drain(queue)
        #expect(answers.values.last == "never:late")
        #expect(socket.pendingAckCount == 0)
    }

    /// The entry goes at once; the wake-up armed for it stays (lazy), fires once at the
    /// deadline, calls nothing and is not armed again.
    @Test func cancelAckRemovesTheEntryAndItsWakeUpFiresOnceForNothing() async throws {
        let (_, _, socket, queue) = connectedSocket()
        let answers = Recorder<[Any]>()
        let id = try #require(socket.emitWithAck("q").sendWithAck(timingOut: 0.05) { answers.append($0) })
        #expect(id == 0)
        #expect(socket.hasAckTimer)
        socket.cancelAck(id)
        #expect(socket.pendingAckCount == 0)
        socket.handleAck(id, data: ["answer"])
        #expect(await ProcessResources.eventually { !socket.hasAckTimer })
        try await Task.sleep(.milliseconds(50))
        drain(queue)
        #expect(answers.count == 0)
        #expect(!socket.hasAckTimer)
        #expect(socket.emitWithAck("next").sendWithAck(timingOut: 0) { _ in } == 1)
    }

    @Test func unrepresentableEmitWithAckRegistersNothing() {
        struct Failing: SocketData {
            struct Problem: Error {}
            func socketRepresentation() throws -> SocketData { throw Problem() }
        }
        let (_, _, socket, _) = connectedSocket()
        #expect(socket.emitWithAck("bad", Failing()).sendWithAck(timingOut: 1) { _ in } == nil)
        #expect(socket.pendingAckCount == 0)
    }

    @Test func thousandEventsBeforeConnectAreDeliveredInOrderAndOneMoreLeaves() {
        let (manager, engine, queue) = makeManager()
        let socket = manager.defaultSocket
        let seen = Recorder<Int>()
        let reasons = Recorder<String>()
        socket.on("n") { data, _ in seen.append(data.first as? Int ?? -1) }
        socket.on(clientEvent: .disconnect) { data, _ in reasons.append(data.first as? String ?? "") }
        socket.connect()
        for index in 0..<1_000 {
            manager.parseEngineMessage(#"2["n",\#(index)]"#)
        }
        manager.parseEngineMessage(#"0{"sid":"s"}"#)
        drain(queue)
        #expect(seen.values == Array(0..<1_000))

        socket.disconnect()
        socket.connect()
        for index in 0...1_000 {
            manager.parseEngineMessage(#"2["n",\#(index)]"#)
        }
        drain(queue)
        #expect(socket.status == .disconnected)
        #expect(reasons.values == ["Namespace leave", "Too many packets before connect"])
        #expect(engine.writes.last == "1")
        #expect(seen.count == 1_000)
    }
}
