import Dispatch
import Foundation
import TestSupport
import Testing

@testable import SocketIO

/// `.retries(n)` with `.ackTimeout(s)` through a ``TestEngine`` and a ``ManualTimerSource``:
/// what reaches the engine, try by try, and what each caller hears (once).
@Suite(.tearsDownTestEngines) struct SocketIORetryTests {
    /// A connected default socket with the options; time moves only with `timers.advance`.
    static func connected(
        _ config: SocketIOClientConfiguration
    ) -> (SocketManager, SocketIOClient, TestEngine, DispatchQueue, ManualTimerSource) {
        let timers = ManualTimerSource()
        let (manager, engine, socket, queue) = connectedTestSocket(config, timers: timers)
        return (manager, socket, engine, queue, timers)
    }

    /// The EVENT writes after the CONNECT.
    static func events(_ engine: TestEngine) -> [String] {
        engine.writes.filter { $0.hasPrefix("2") }
    }

    @Test func everyEmitGetsAnAckAndTheyGoOutOneAtATime() {
        let (manager, socket, engine, queue, _) = Self.connected([.retries(2), .ackTimeout(1)])
        let written = Recorder<String>()
        let acks = Recorder<String>()
        socket.emit("a", 1, completion: { written.append("a") })
        socket.emitWithAck("b", 2).timingOut(after: 0) { items in acks.append("b:\(items)") }
        socket.emit("c", 3)
        drain(queue)
        #expect(Self.events(engine) == [#"20["a",1]"#])
        #expect(written.values.isEmpty, "a plain emit completes once acknowledged")

        manager.parseEngineMessage(#"30[]"#)
        drain(queue)
        #expect(Self.events(engine) == [#"20["a",1]"#, #"21["b",2]"#])
        #expect(written.values == ["a"])
        manager.parseEngineMessage(#"31["ok"]"#)
        drain(queue)
        #expect(acks.values == [#"b:["ok"]"#])
        #expect(Self.events(engine).last == #"22["c",3]"#)
        manager.parseEngineMessage(#"32[]"#)
        drain(queue)
        #expect(Self.events(engine).count == 3)
    }

    @Test func aTryWithoutAnAckIsSentAgainThenGivenUp() {
        let (_, socket, engine, queue, timers) = Self.connected([.retries(2), .ackTimeout(1)])
        let acks = Recorder<[String]>()
        let errors = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        socket.emitWithAck("lost").timingOut(after: 0) { items in acks.append(items.compactMap { $0 as? String }) }
        socket.emit("next")
        drain(queue)
        #expect(Self.events(engine) == [#"20["lost"]"#])
        timers.advance(by: .milliseconds(999))
        #expect(Self.events(engine).count == 1)
        timers.advance(by: .milliseconds(1))
        // The second try has an ack id of its own; the first's late ack is ignored.
        #expect(Self.events(engine) == [#"20["lost"]"#, #"21["lost"]"#])
        timers.advance(by: .seconds(1))
        #expect(Self.events(engine).last == #"22["lost"]"#)
        timers.advance(by: .seconds(1))
        drain(queue)
        #expect(acks.values == [["NO ACK"]], "told once, after 3 tries")
        #expect(errors.values.isEmpty)
        // Then the next emit goes out.
        #expect(Self.events(engine).last == #"23["next"]"#)
    }

    @Test func anAckForAnEarlierTryOrAnotherEmitIsIgnored() {
        let (manager, socket, engine, queue, timers) = Self.connected([.retries(3), .ackTimeout(1)])
        let acks = Recorder<String>()
        socket.emitWithAck("a").timingOut(after: 0) { items in acks.append("a:\(items)") }
        socket.emitWithAck("b").timingOut(after: 0) { items in acks.append("b:\(items)") }
        drain(queue)
        timers.advance(by: .seconds(1))
        #expect(Self.events(engine) == [#"20["a"]"#, #"21["a"]"#])
        manager.parseEngineMessage(#"30["late"]"#)  // the first try's: its entry went with its timeout
        manager.parseEngineMessage(#"37["unknown"]"#)
        drain(queue)
        #expect(acks.values.isEmpty)
        manager.parseEngineMessage(#"31["second"]"#)
        drain(queue)
        #expect(acks.values == [#"a:["second"]"#])
        #expect(Self.events(engine).last == #"22["b"]"#)
    }

    @Test func theEmitsOwnTimeoutOverridesTheManagers() {
        let (_, socket, engine, queue, timers) = Self.connected([.retries(1), .ackTimeout(10)])
        let acks = Recorder<String>()
        socket.emitWithAck("quick").timingOut(after: 0.5) { items in acks.append("\(items)") }
        drain(queue)
        timers.advance(by: .milliseconds(500))
        #expect(Self.events(engine) == [#"20["quick"]"#, #"21["quick"]"#])
        timers.advance(by: .milliseconds(500))
        drain(queue)
        #expect(acks.values == [#"["NO ACK"]"#])
    }

    @Test func aLostConnectionEndsTheTryAndTheReconnectionSendsItAgain() {
        let (manager, socket, engine, queue, _) = Self.connected([.retries(2), .ackTimeout(0)])
        let acks = Recorder<String>()
        socket.emitWithAck("a").timingOut(after: 0) { items in acks.append("\(items)") }
        drain(queue)
        #expect(Self.events(engine) == [#"20["a"]"#])
        manager.engineDidClose(reason: "transport close")
        drain(queue)
        #expect(socket.status == .connecting)
        // Made while reconnecting: queued behind "a".
        socket.emit("b")
        manager.engineDidOpen(reason: "open")
        drain(queue)
        manager.parseEngineMessage(#"0{"sid":"s2"}"#)
        drain(queue)
        #expect(Self.events(engine) == [#"20["a"]"#, #"21["a"]"#])
        manager.parseEngineMessage(#"31["ok"]"#)
        drain(queue)
        #expect(acks.values == [#"["ok"]"#])
        #expect(Self.events(engine).last == #"22["b"]"#)
    }

    @Test func aLeaveFailsWhatIsQueuedAndLaterEmitsAreRefused() {
        let (_, socket, engine, queue, _) = Self.connected([.retries(2), .ackTimeout(1)])
        let acks = Recorder<String>()
        let errors = Recorder<String>()
        let completions = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        socket.emitWithAck("a").timingOut(after: 0) { items in acks.append("\(items)") }
        socket.emit("b", completion: { completions.append("b") })
        drain(queue)
        socket.disconnect()
        drain(queue)
        #expect(acks.values == [#"["NO ACK"]"#])
        #expect(completions.values == ["b"])
        #expect(errors.values == ["Tried emitting when not connected"])
        // The dropped try's entry is gone, and the disconnect, which left nothing with a
        // deadline, cancelled the ack timer (the socket keeps none).
        #expect(socket.pendingAckCount == 0)
        #expect(!socket.hasAckTimer)
        socket.emit("c")
        drain(queue)
        #expect(errors.values.count == 2)
        #expect(!engine.writes.contains { $0.contains("\"c\"") })
    }

    @Test func theQueueIsBoundedBySendBufferOrAThousand() {
        let (_, socket, _, queue, _) = Self.connected([.retries(1), .sendBuffer(2)])
        let errors = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        for index in 0..<1_001 { socket.emit("e\(index)") }
        drain(queue)
        #expect(errors.values == ["Retry queue full (1000 emits): not sent"])
    }

    @Test func volatileEmitsAndAcksBypassTheQueue() {
        let (manager, socket, engine, queue, _) = Self.connected([.retries(1), .ackTimeout(1)])
        socket.on("ask") { _, ack in ack.with("answer") }
        socket.emit("held")
        socket.volatile.emit("cursor", 1)
        manager.parseEngineMessage(#"25["ask"]"#)
        drain(queue)
        drain(queue)
        #expect(Self.events(engine) == [#"20["held"]"#, #"2["cursor",1]"#])
        #expect(engine.writes.last == #"35["answer"]"#)
    }

    @Test func withoutTheOptionNothingChanges() {
        let (_, socket, engine, queue, _) = Self.connected([.ackTimeout(1)])
        socket.emit("a")
        socket.emit("b")
        drain(queue)
        #expect(Self.events(engine) == [#"2["a"]"#, #"2["b"]"#])
        #expect(socket.pendingAckCount == 0)
    }

    @Test func cancellingAQueuedEmitSendsTheNext() {
        let (_, socket, engine, queue, _) = Self.connected([.retries(1), .ackTimeout(1)])
        let acks = Recorder<String>()
        let ticket = socket.emitWithAck("a").sendWithAck(timingOut: 0) { items in acks.append("\(items)") }
        socket.emit("b")
        drain(queue)
        #expect(ticket.map { $0 < 0 } == true, "a queue ticket, not an ack id")
        socket.cancelAck(ticket!)
        drain(queue)
        #expect(Self.events(engine) == [#"20["a"]"#, #"21["b"]"#])
        #expect(acks.values.isEmpty)
        #expect(socket.pendingAckCount == 1)
    }
}

/// `.parser(.msgpack)` speaks socket.io 3 / 4's msgpack format only: with `.version(.two)` a
/// connect is refused with a clear error, and nothing is sent.
@Suite(.tearsDownTestEngines) struct SocketParserVersionTests {
    @Test func msgpackWithVersionTwoIsRefusedAtConnect() {
        let (manager, engine, queue) = makeManager([.parser(.msgpack), .version(.two)])
        let socket = manager.socket(forNamespace: "/chat")
        let errors = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        socket.connect()
        drain(queue)
        #expect(errors.values == [SocketParser.versionTwoRefusal])
        #expect(socket.status == .disconnected)
        #expect(engine.writes.isEmpty)
        #expect(engine.connectCount == 0)
    }
}
