import Dispatch
import Foundation
import Testing

@testable import SocketIO

/// The network packet path: decoding, the namespace machine, awaiting acks and value
/// subscribers on the thread that read the message; `[Any]` handlers on `handleQueue`, in order.
@Suite(.tearsDownTestEngines) struct SocketPacketPathTests {
    func connectedSocket() -> (SocketManager, TestEngine, SocketIOClient, DispatchQueue) {
        connectedTestSocket()
    }

    @Test func anAwaitedAckIsSettledOnTheReadingThreadWithoutHandleQueue() throws {
        let (manager, _, socket, queue) = connectedSocket()
        let got = Recorder<[Any]>()
        let sent = socket.createOnAck(["ask"]).sendWithAck(
            timingOut: 0,
            waiter: { outcome in
                if case .ack(.values(let values)) = outcome { got.append(values.map { SocketValueConversion.any(from: $0) }) }
            })
        guard case .sent(let id) = sent else {
            Issue.record("not sent: \(sent)")
            return
        }
        queue.suspend()
        defer { queue.resume() }
        manager.parseEngineMessage(#"61-\#(id)["yes",{"_placeholder":true,"num":0}]"#)
        #expect(got.count == 0)
        manager.parseEngineBinaryData(Data([9]))
        #expect(got.count == 1)
        #expect(got.values.first?.first as? String == "yes")
        #expect(got.values.first?.last as? Data == Data([9]))
        #expect(socket.pendingAckCount == 0)
    }

    @Test func anAckCallbackStillRunsOnHandleQueue() {
        let (manager, _, socket, queue) = connectedSocket()
        let got = Recorder<[Any]>()
        socket.emitWithAck("ask").timingOut(after: 0) { got.append($0) }
        queue.suspend()
        manager.parseEngineMessage(#"30["yes"]"#)
        #expect(got.count == 0)
        queue.resume()
        drain(queue)
        #expect(got.values.first?.first as? String == "yes")
    }

    @Test func aValueSubscriberIsFedOnTheReadingThreadUnlessAnAnyHandlerWantsTheEvent() {
        let (manager, _, socket, queue) = connectedSocket()
        let values = Recorder<[Any]>()
        let id = socket.on(
            "tick", values: { values.append($0.values.map { SocketValueConversion.any(from: $0) }) },
            items: { _, _ in Issue.record("the [Any] callback ran for a network event") })
        queue.suspend()
        manager.parseEngineMessage(#"2["tick",1,true]"#)
        #expect(values.count == 1)
        #expect(values.values.first?.first as? Int == 1)
        #expect(values.values.first?.last as? Bool == true)
        queue.resume()

        // An [Any] handler for the same event: the event waits for handleQueue, and both get it
        // there, in registration order.
        let order = Recorder<String>()
        socket.off(id: id)
        _ = socket.on("tick", values: { _ in order.append("values") }, items: { _, _ in order.append("items") })
        socket.on("tick") { _, _ in order.append("handler") }
        queue.suspend()
        manager.parseEngineMessage(#"2["tick",2]"#)
        #expect(order.count == 0)
        queue.resume()
        drain(queue)
        #expect(order.values == ["values", "handler"])
    }

    @Test func packetsQueueBehindEarlierNetworkWorkOnHandleQueue() {
        let (manager, _, socket, queue) = connectedSocket()
        let order = Recorder<String>()
        socket.on("slow") { _, _ in order.append("slow") }
        _ = socket.on("fast", values: { _ in order.append("fast") }, items: { _, _ in order.append("fast items") })
        let sent = socket.createOnAck(["ask"]).sendWithAck(timingOut: 0, waiter: { _ in order.append("ack") })
        guard case .sent(let id) = sent else {
            Issue.record("not sent")
            return
        }
        queue.suspend()
        manager.parseEngineMessage(#"2["slow"]"#)  // an [Any] handler: queued
        manager.parseEngineMessage(#"2["fast"]"#)  // would be direct, but must not overtake
        manager.parseEngineMessage("3\(id)[]")
        #expect(order.count == 0)
        queue.resume()
        drain(queue)
        #expect(order.values == ["slow", "fast", "ack"])
        // With nothing queued any more, the next one is direct again.
        queue.suspend()
        manager.parseEngineMessage(#"2["fast"]"#)
        #expect(order.values == ["slow", "fast", "ack", "fast"])
        queue.resume()
    }

    @Test func anEngineEventQueuedOnHandleQueueIsNotOvertaken() {
        let (manager, _, socket, queue) = connectedSocket()
        let order = Recorder<String>()
        socket.on(clientEvent: .ping) { _, _ in order.append("ping") }
        _ = socket.on("fast", values: { _ in order.append("fast") }, items: { _, _ in })
        queue.suspend()
        manager.engineDidReceivePing()
        manager.parseEngineMessage(#"2["fast"]"#)
        #expect(order.count == 0)
        queue.resume()
        drain(queue)
        #expect(order.values == ["ping", "fast"])
    }

    @Test func waitingPacketsAreTheReadersAndCanBeReplaced() {
        let (manager, _, socket, queue) = connectedSocket()
        let got = Recorder<[Any]>()
        socket.on("bin") { data, _ in got.append(data) }
        manager.parseEngineMessage(#"52-["bin",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
        manager.parseEngineBinaryData(Data([1]))
        let waiting = manager.waitingPackets
        #expect(waiting.count == 1)
        #expect(waiting.first?.binary == [Data([1])])
        #expect(waiting.first?.placeholders == 2)

        manager.waitingPackets = []
        manager.parseEngineBinaryData(Data([2]))
        drain(queue)
        #expect(got.count == 0)

        manager.waitingPackets = waiting
        manager.parseEngineBinaryData(Data([2]))
        drain(queue)
        #expect(got.values.first?.first as? Data == Data([1]))
        #expect(got.values.first?.last as? Data == Data([2]))
    }

    @Test func aNumericEventNameOrAMalformedPacketIsDroppedAndTheNextOneDelivered() {
        let (manager, _, socket, queue) = connectedSocket()
        let got = Recorder<String>()
        socket.onAny { got.append($0.event) }
        manager.parseEngineMessage("2[1]")
        manager.parseEngineMessage(#"2["a""#)
        manager.parseEngineBinaryData(Data([1]))
        manager.parseEngineMessage(#"2["ok"]"#)
        drain(queue)
        #expect(got.values == ["ok"])
    }
}
