import Dispatch
import Foundation
import Testing

@testable import SocketIO

/// `onAnyOutgoing` (socket.io-client's): called for what is actually written, kept emits when
/// they are flushed, never for refused, dropped or kept-but-unsent emits, nor for acks.
@Suite(.tearsDownTestEngines) struct SocketIOAnyOutgoingTests {
    @Test func reportsWhatIsWrittenIncludingFlushedEmits() {
        let (manager, engine, queue) = makeManager([.sendBuffer(5)])
        let socket = manager.defaultSocket
        let sent = Recorder<String>()
        let id = socket.onAnyOutgoing { event in sent.append("\(event.event):\(event.items?.count ?? 0)") }
        let second = Recorder<String>()
        socket.onAnyOutgoing { event in second.append(event.event) }

        socket.connect()
        socket.emit("kept", 1)
        socket.volatile.emit("dropped")
        drain(queue)
        #expect(sent.values.isEmpty)  // kept, not written yet

        manager.parseEngineMessage(#"0{"sid":"s"}"#)
        drain(queue)
        drain(queue)  // the report is queued behind the CONNECT reply's work
        #expect(engine.writes.last == #"2["kept",1]"#)
        #expect(sent.values == ["kept:1"])

        socket.emit("now", "a", "b")
        socket.emitAck(3, with: ["answer"])  // an ack is not an event
        drain(queue)
        #expect(sent.values == ["kept:1", "now:2"])
        #expect(second.values == ["kept", "now"])

        socket.offAnyOutgoing(id: id)
        socket.emit("after")
        drain(queue)
        #expect(sent.values == ["kept:1", "now:2"])
        #expect(second.values == ["kept", "now", "after"])
        socket.offAnyOutgoing()
        socket.emit("none")
        drain(queue)
        #expect(second.values == ["kept", "now", "after"])

        socket.disconnect()
        socket.emit("refused")
        drain(queue)
        #expect(second.values == ["kept", "now", "after"])
    }
}
