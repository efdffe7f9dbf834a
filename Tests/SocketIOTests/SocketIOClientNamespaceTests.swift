import Dispatch
import Foundation
import Testing

@testable import SocketIO

/// The socket's `NamespaceStateMachine` as driven by the manager, through a ``TestEngine``.
@Suite(.tearsDownTestEngines) struct SocketIOClientNamespaceTests {
    @Test func socketCreatedAfterTheEngineOpenedSendsConnectAtOnce() {
        let (manager, engine, queue) = makeManager()
        manager.defaultSocket.connect()
        drain(queue)
        manager.parseEngineMessage(#"0{"sid":"root"}"#)
        drain(queue)

        let late = manager.socket(forNamespace: "/late")
        late.connect(withPayload: ["token": "t"])
        drain(queue)
        #expect(engine.writes.last == #"0/late,{"token":"t"}"#)
        #expect(engine.connectCount == 1)
        manager.parseEngineMessage(#"0/late,{"sid":"l"}"#)
        drain(queue)
        #expect(late.status == .connected)
        #expect(late.sid == "l")
    }

    @Test func connectAckWithoutSidIsRefusedAsNotSocketIOFive() {
        let (manager, _, queue) = makeManager()
        let socket = manager.defaultSocket
        let errors = Recorder<String>()
        socket.on(clientEvent: .error) { data, _ in errors.append(data.first as? String ?? "") }
        socket.connect()
        drain(queue)
        manager.parseEngineMessage("0")
        drain(queue)
        #expect(socket.status == .disconnected)
        #expect(errors.values.first?.contains("without sid") == true)
    }

    @Test func socketIOTwoJoinsTheMainNamespaceImplicitly() {
        let (manager, engine, queue) = makeManager([.version(.two)])
        let socket = manager.defaultSocket
        let admin = manager.socket(forNamespace: "/admin")
        socket.connect()
        admin.connect(withPayload: ["ignored": true])
        drain(queue)
        #expect(engine.writes == ["0/admin,"])  // no CONNECT for "/", no auth payload in v4
        #expect(socket.status == .connecting)

        manager.parseEngineMessage("0")
        manager.parseEngineMessage("0/admin,")
        drain(queue)
        #expect(socket.status == .connected)
        #expect(admin.status == .connected)
    }

    @Test func socketIOTwoImplicitJoinBeforeConnectIsReportedOnConnect() {
        let (manager, _, queue) = makeManager([.version(.two)])
        let socket = manager.defaultSocket
        manager.connect()
        drain(queue)
        manager.parseEngineMessage("0")
        drain(queue)
        #expect(socket.status == .notConnected)
        socket.connect()
        drain(queue)
        #expect(socket.status == .connected)
    }

    /// The protocol version lives in one place, the manager's options: a `.version` set after
    /// the sockets were made applies to them from their next join, and to the packet reader.
    @Test func aVersionSetLaterAppliesToExistingSocketsAtTheirNextJoin() {
        let (manager, engine, queue) = makeManager()
        let socket = manager.defaultSocket
        let admin = manager.socket(forNamespace: "/admin")
        manager.setConfigs([.version(.two), .handleQueue(queue), .reconnectWait(0), .randomizationFactor(0)])
        socket.connect()
        admin.connect(withPayload: ["ignored": true])
        drain(queue)
        #expect(engine.writes == ["0/admin,"])  // v4: no CONNECT for "/", no auth payload

        manager.parseEngineMessage("0")  // v4's implicit main-namespace CONNECT, no sid
        manager.parseEngineMessage("0/admin,")
        drain(queue)
        #expect(socket.status == .connected)
        #expect(admin.status == .connected)
    }
}
