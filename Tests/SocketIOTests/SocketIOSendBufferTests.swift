import Dispatch
import Foundation
import Testing

@testable import SocketIO

/// `.sendBuffer(n)` and `socket.volatile` through a ``TestEngine``: what reaches the engine, in
/// what order, and what the handlers hear.
@Suite(.tearsDownTestEngines) struct SocketIOSendBufferTests {
    @Test func emitsWhileConnectingAreSentAfterTheCONNECTReplyInOrder() {
        let (manager, engine, queue) = makeManager([.sendBuffer(2)])
        let socket = manager.defaultSocket
        let errors = Recorder<String>()
        let order = Recorder<String>()
        let completions = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        socket.on(clientEvent: .connect) { _, _ in order.append("connect:\(engine.writes.count)") }
        socket.connect()
        drain(queue)
        #expect(engine.writes == ["0"])
        socket.emit("a", 1, completion: { completions.append("a") })
        socket.volatile.emit("volatile", 2)  // dropped, silently
        socket.emit("b", Data([7]))
        socket.emit("c")  // one too many
        drain(queue)
        #expect(engine.writes == ["0"])
        #expect(errors.values == ["Send buffer full (2 emits): not sent"])
        #expect(completions.values.isEmpty)

        manager.parseEngineMessage(#"0{"sid":"s"}"#)
        drain(queue)
        drain(queue)  // the completions are queued behind the CONNECT reply's work
        // Sent before the `connect` handlers run, as socket.io-client's emitBuffered.
        #expect(engine.writes == ["0", #"2["a",1]"#, #"51-["b",{"_placeholder":true,"num":0}]"#])
        #expect(engine.binaryWrites.last == [Data([7])])
        #expect(order.values == ["connect:3"])
        #expect(completions.values == ["a"])
        #expect(socket.volatile.emit("volatile", 3))
        #expect(engine.writes.last == #"2["volatile",3]"#)
    }

    @Test func aLeaveDiscardsTheKeptEmitsAsUpstreamRefusesThem() {
        let (manager, engine, queue) = makeManager([.sendBuffer(10)])
        let socket = manager.defaultSocket
        let errors = Recorder<String>()
        let completions = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        socket.connect()
        socket.emit("a", completion: { completions.append("a") })
        drain(queue)
        socket.disconnect()
        drain(queue)
        #expect(errors.values == ["Tried emitting when not connected"])
        #expect(completions.values == ["a"])
        #expect(!engine.writes.contains { $0.contains("\"a\"") })
    }

    @Test func withoutTheOptionAnEmitWhileConnectingFailsAsUpstream() {
        let (manager, engine, queue) = makeManager()
        let socket = manager.defaultSocket
        let errors = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        socket.connect()
        socket.emit("a")
        #expect(!socket.volatile.emit("v"))
        drain(queue)
        manager.parseEngineMessage(#"0{"sid":"s"}"#)
        drain(queue)
        #expect(errors.values == ["Tried emitting when not connected"])
        #expect(engine.writes == ["0"])
    }
}
