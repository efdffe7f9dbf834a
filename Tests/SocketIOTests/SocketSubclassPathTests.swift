import Dispatch
import Foundation
import RealtimeSync
import Testing

@testable import SocketIO

/// A subclass of `SocketIOClient` takes the same path through the session's core as the class
/// itself: the same machine inputs, so the same recovery, acks and status; only its deliveries
/// go through upstream's open methods on `handleQueue`, so its overrides see every packet,
/// event and ack.
@Suite(.tearsDownTestEngines) struct SocketSubclassPathTests {
    /// A socket of the class itself, or of a subclass that records what reaches its overrides.
    func connectedSocket(subclass: Bool) -> (SocketManager, TestEngine, SocketIOClient, DispatchQueue) {
        let (manager, engine, queue) = makeManager([.reconnects(false)])
        let socket = subclass ? OverridingSocket(manager: manager, nsp: "/") : manager.defaultSocket
        manager.nsps["/"] = socket
        socket.connect()
        drain(queue)
        manager.parseEngineMessage(#"0{"sid":"s1","pid":"P1"}"#)
        drain(queue)
        return (manager, engine, socket, queue)
    }

    /// Connection state recovery: the next CONNECT carries the pid and the offset of the last
    /// event, whichever class the socket is.
    @Test(arguments: [false, true]) func theNextConnectCarriesThePidAndLastOffset(subclass: Bool) {
        let (manager, engine, socket, queue) = connectedSocket(subclass: subclass)
        let ticks = Recorder<[Any]>()
        socket.on("tick") { data, _ in ticks.append(data) }
        manager.parseEngineMessage(#"2["tick",1,"o1"]"#)
        manager.parseEngineMessage(#"2["tick",2,"o2"]"#)
        drain(queue)
        #expect(ticks.count == 2)
        #expect(socket.status == .connected)

        socket.disconnect()
        drain(queue)
        socket.connect()
        drain(queue)
        #expect(engine.writes.last == #"0{"pid":"P1","offset":"o2"}"#)
        withExtendedLifetime(manager) {}
    }

    /// An awaited ack is settled, and the ack table emptied, whichever class the socket is; a
    /// subclass's `handleAck` override sees the ack first.
    @Test(arguments: [false, true]) func anAwaitedAckIsSettled(subclass: Bool) throws {
        let (manager, _, socket, queue) = connectedSocket(subclass: subclass)
        let got = Recorder<String>()
        let sent = socket.createOnAck(["ask"]).sendWithAck(
            timingOut: 0,
            waiter: { outcome in
                if case .ack(let items) = outcome { got.append("\(items)") }
            })
        guard case .sent(let id) = sent else {
            Issue.record("not sent: \(sent)")
            return
        }
        manager.parseEngineMessage(#"3\#(id)["yes"]"#)
        drain(queue)
        #expect(got.count == 1)
        #expect(socket.pendingAckCount == 0)
        if let overriding = socket as? OverridingSocket {
            #expect(overriding.seen.values == ["packet connect", "packet ack", "ack \(id)"])
        }
    }

    /// A subclass's `handlePacket` override sees every packet the network delivers, in
    /// upstream's shape, and its `handleEvent` override every event, on `handleQueue`, even when
    /// only a SocketIOConcurrency-style value subscriber wants the event (which the class
    /// itself feeds on the reading thread).
    @Test func aSubclassOverrideSeesEveryPacketAndEvent() {
        let (manager, _, socket, queue) = connectedSocket(subclass: true)
        let overriding = socket as! OverridingSocket
        let values = Recorder<Int>()
        _ = socket.on("tick", values: { values.append($0.values.count) }, items: { items, _ in values.append(items.count) })
        queue.suspend()
        manager.parseEngineMessage(#"2["tick",1]"#)
        #expect(values.count == 0)
        queue.resume()
        drain(queue)
        #expect(values.values == [1])
        #expect(overriding.seen.values == ["packet connect", "packet event", "event tick"])
    }

    /// An override that does not call `super` handles the packet itself: nothing of it is
    /// delivered, as upstream; the next packet is delivered as usual.
    @Test func anOverrideThatDoesNotCallSuperHandlesThePacketItself() {
        let (manager, _, socket, queue) = connectedSocket(subclass: true)
        let overriding = socket as! OverridingSocket
        let ticks = Recorder<Int>()
        socket.on("tick") { data, _ in ticks.append(data.first as? Int ?? -1) }
        overriding.swallowNext.withLock { $0 = true }
        manager.parseEngineMessage(#"2["tick",1]"#)
        manager.parseEngineMessage(#"2["tick",2]"#)
        drain(queue)
        #expect(ticks.values == [2])
    }
}

/// Records what reaches upstream's open methods, then calls `super` (unless told to swallow
/// the next packet).
final class OverridingSocket: SocketIOClient, @unchecked Sendable {
    let seen = Recorder<String>()
    let swallowNext = LockedValue(false)

    override func handlePacket(_ packet: SocketPacket) {
        self.seen.append("packet \(packet.type)")
        if self.swallowNext.withLock({ swallow in
            defer { swallow = false }
            return swallow
        }) {
            return
        }
        super.handlePacket(packet)
    }

    override func handleEvent(_ event: String, data: [Any], isInternalMessage: Bool, withAck ack: Int = -1) {
        if !isInternalMessage { self.seen.append("event \(event)") }
        super.handleEvent(event, data: data, isInternalMessage: isInternalMessage, withAck: ack)
    }

    override func handleAck(_ ack: Int, data: [Any]) {
        self.seen.append("ack \(ack)")
        super.handleAck(ack, data: data)
    }
}
