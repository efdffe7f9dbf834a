import Dispatch
import Foundation
import Testing

@testable import SocketIO

@Suite(.tearsDownTestEngines) struct SocketIOClientTests {
    /// A connected default socket on a manager with a ``TestEngine``.
    func connectedSocket(_ nsp: String = "/") -> (SocketManager, TestEngine, SocketIOClient, DispatchQueue) {
        let (manager, engine, queue) = makeManager()
        let socket = manager.socket(forNamespace: nsp)
        socket.connect()
        drain(queue)
        manager.parseEngineMessage(nsp == "/" ? #"0{"sid":"s1"}"# : #"0\#(nsp),{"sid":"s1"}"#)
        drain(queue)
        return (manager, engine, socket, queue)
    }

    @Test func connectReportsNamespaceAndPayloadAndStatusChanges() {
        let (manager, engine, queue) = makeManager()
        let socket = manager.socket(forNamespace: "/admin")
        let events = Recorder<(String, [Any])>()
        socket.onAny { events.append(($0.event, $0.items ?? [])) }

        socket.connect(withPayload: ["token": "secret"])
        drain(queue)
        #expect(engine.writes == [#"0/admin,{"token":"secret"}"#])
        #expect(socket.status == .connecting)

        manager.parseEngineMessage(#"0/admin,{"sid":"abc"}"#)
        drain(queue)
        #expect(socket.status == .connected)
        #expect(socket.sid == "abc")

        let names = events.values.map(\.0)
        #expect(names == ["statusChange", "statusChange", "connect"])
        let firstStatus = events.values[0].1
        #expect(firstStatus[0] as? SocketIOStatus == .connecting)
        #expect(firstStatus[1] as? Int == SocketIOStatus.connecting.rawValue)
        let connect = events.values[2].1
        #expect(connect[0] as? String == "/admin")
        #expect((connect[1] as? [String: Any])?["sid"] as? String == "abc")
    }

    @Test func handlersOnOnceOffAndAny() {
        let (_, _, socket, _) = connectedSocket()
        let calls = Recorder<String>()
        let id = socket.on("a") { data, _ in calls.append("on:\(data.first as? Int ?? -1)") }
        socket.once("a") { _, _ in calls.append("once") }
        socket.on("b") { _, _ in calls.append("b") }
        socket.handleEvent("a", data: [1], isInternalMessage: false)
        socket.handleEvent("a", data: [2], isInternalMessage: false)
        socket.off(id: id)
        socket.handleEvent("a", data: [3], isInternalMessage: false)
        socket.off("b")
        socket.handleEvent("b", data: [], isInternalMessage: false)
        #expect(calls.values == ["on:1", "once", "on:2"])
        #expect(socket.handlers.isEmpty)

        socket.on(clientEvent: .error) { _, _ in calls.append("error") }
        socket.removeAllHandlers()
        socket.handleClientEvent(.error, data: ["x"])
        #expect(calls.count == 3)
    }

    @Test func eventsAreDroppedWhileNotConnectedUnlessInternal() {
        let (manager, _, _) = makeManager()
        let socket = manager.defaultSocket
        let calls = Recorder<String>()
        socket.on("evt") { _, _ in calls.append("evt") }
        socket.on(clientEvent: .error) { _, _ in calls.append("error") }
        socket.handleEvent("evt", data: [], isInternalMessage: false)
        socket.handleEvent("error", data: [], isInternalMessage: true)
        #expect(calls.values == ["error"])
    }

    @Test func emittingWhileNotConnectedReportsTheUpstreamError() {
        let (manager, engine, queue) = makeManager()
        let socket = manager.defaultSocket
        let errors = Recorder<[Any]>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data) }
        let completed = Recorder<Bool>()
        socket.emit("x", 1, completion: { completed.append(true) })
        drain(queue)
        #expect(errors.values.count == 1)
        #expect(errors.values.first?.first as? String == "Tried emitting when not connected")
        #expect(completed.count == 1)
        #expect(engine.writes.isEmpty)
    }

    struct Failing: SocketData {
        struct Problem: Error {}
        func socketRepresentation() throws -> SocketData { throw Problem() }
    }

    @Test func conversionFailureReportsEventItemsAndError() {
        let (_, engine, socket, _) = connectedSocket()
        let errors = Recorder<[Any]>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data) }
        let before = engine.writes.count
        socket.emit("bad", Failing())
        #expect(engine.writes.count == before)
        let payload = errors.values.first ?? []
        #expect(payload.count == 3)
        #expect(payload.first as? String == "bad")
        #expect(payload.last is Failing.Problem)
    }

    @Test func emitWritesEveryTypeInOrder() {
        let (_, engine, socket, queue) = connectedSocket("/admin")
        let done = Recorder<Int>()
        socket.emit("types", "s", 1, 2.5, true, ["a": 1], [1, 2], Data([0xFF]), NSNull(), completion: { done.append(1) })
        drain(queue)
        drain(queue)
        #expect(engine.writes.last == #"51-/admin,["types","s",1,2.5,true,{"a":1},[1,2],{"_placeholder":true,"num":0},null]"#)
        #expect(engine.binaryWrites.last == [Data([0xFF])])
        #expect(done.count == 1)
    }

    @Test func ackRoundTripAndTimeout() async {
        let (_, engine, socket, queue) = connectedSocket()
        let acks = Recorder<[Any]>()
        socket.emitWithAck("q", 1).timingOut(after: 0) { acks.append($0) }
        #expect(engine.writes.last == #"20["q",1]"#)
        socket.handleAck(0, data: ["answer"])
        socket.handleAck(0, data: ["again"])
        #expect(acks.values.count == 1)
        #expect(acks.values.first?.first as? String == "answer")

        socket.emitWithAck("slow").timingOut(after: 0.05) { acks.append($0) }
        #expect(await acks.wait(forCount: 2))
        #expect(acks.values.last?.first as? String == "NO ACK")
        #expect((acks.values.last?.first as? String ?? "") == SocketAckStatus.noAck)
        drain(queue)
    }

    @Test func incomingAckRequestIsAnsweredThroughTheEmitter() {
        let (manager, engine, socket, queue) = connectedSocket()
        socket.on("ask") { data, ack in
            #expect(ack.expected)
            ack.with("reply", Data([1]))
        }
        socket.on("tell") { _, ack in
            #expect(!ack.expected)
            ack.with("ignored")
        }
        manager.parseEngineMessage(#"29["ask",1]"#)
        manager.parseEngineMessage(#"2["tell"]"#)
        drain(queue)
        #expect(engine.writes.last == #"61-9["reply",{"_placeholder":true,"num":0}]"#)
    }

    @Test func binaryEventIsReassembled() {
        let (manager, _, socket, queue) = connectedSocket()
        let got = Recorder<[Any]>()
        socket.on("bin") { data, _ in got.append(data) }
        manager.parseEngineMessage(#"52-["bin",{"_placeholder":true,"num":0},{"n":{"_placeholder":true,"num":1}}]"#)
        manager.parseEngineBinaryData(Data([1]))
        drain(queue)
        #expect(got.count == 0)
        manager.parseEngineBinaryData(Data([2, 3]))
        drain(queue)
        #expect(got.values.first?.first as? Data == Data([1]))
        #expect((got.values.first?.last as? [String: Any])?["n"] as? Data == Data([2, 3]))
    }

    @Test func connectErrorReportsServerObjectAndAllowsRetry() {
        let (manager, engine, queue) = makeManager()
        let socket = manager.socket(forNamespace: "/admin")
        let errors = Recorder<[Any]>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data) }
        socket.connect(withPayload: ["token": "bad"])
        drain(queue)
        manager.parseEngineMessage(#"4/admin,{"message":"forbidden","data":{"reason":"bad token"}}"#)
        drain(queue)
        #expect(socket.status == .disconnected)
        let object = errors.values.first?.first as? [String: Any]
        #expect(object?["message"] as? String == "forbidden")
        #expect((object?["data"] as? [String: Any])?["reason"] as? String == "bad token")

        socket.connect(withPayload: ["token": "good"])
        drain(queue)
        #expect(socket.status == .connecting)
        #expect(engine.writes.last == #"0/admin,{"token":"good"}"#)
    }

    @Test func disconnectReasons() {
        let (manager, engine, socket, queue) = connectedSocket("/admin")
        let reasons = Recorder<String>()
        socket.on(clientEvent: .disconnect) { data, _ in reasons.append(data.first as? String ?? "?") }
        manager.parseEngineMessage("1/admin,")
        drain(queue)
        #expect(reasons.values == ["Got Disconnect"])
        #expect(socket.status == .disconnected)

        socket.connect()
        manager.parseEngineMessage(#"0/admin,{"sid":"x"}"#)
        drain(queue)
        socket.disconnect()
        #expect(engine.writes.last == "1/admin,")
        #expect(reasons.values == ["Got Disconnect", "Namespace leave"])
    }

    @Test func connectTimeoutCallsHandlerAndLeaves() async {
        let (manager, engine, _) = makeManager()
        engine.opensOnConnect = false
        let socket = manager.defaultSocket
        let timedOut = Recorder<Bool>()
        socket.connect(withPayload: nil, timeoutAfter: 0.05) { timedOut.append(true) }
        #expect(await timedOut.wait(forCount: 1))
        #expect(socket.status == .disconnected)
    }
}

@Suite(.tearsDownTestEngines) struct SocketIOClientEarlyEventTests {
    /// socket.io-client's `receiveBuffer` order: the status is `connected`, the early events are
    /// delivered in order, then `connect`.
    @Test func eventsBeforeConnectAreDeliveredBeforeTheConnectEvent() {
        let (manager, _, queue) = makeManager()
        let socket = manager.defaultSocket
        let order = Recorder<String>()
        socket.on(clientEvent: .connect) { _, _ in order.append("connect") }
        socket.on("welcome") { data, _ in order.append("welcome:\(data.first as? Int ?? -1)") }
        socket.connect()
        manager.parseEngineMessage(#"2["welcome",1]"#)
        manager.parseEngineMessage(#"2["welcome",2]"#)
        drain(queue)
        #expect(order.values.isEmpty)
        manager.parseEngineMessage(#"0{"sid":"s"}"#)
        drain(queue)
        #expect(order.values == ["welcome:1", "welcome:2", "connect"])
    }

    @Test func hostileBinaryAnnouncementsStayBounded() {
        let (manager, _, queue) = makeManager()
        for index in 0..<1_000 {
            manager.parseEngineMessage(#"51-["b\#(index)",{"_placeholder":true,"num":0}]"#)
        }
        drain(queue)
        #expect(manager.waitingPackets.count == SocketManager.maximumWaitingPackets)
    }
}
