import EngineIOProtocol
import Testing

@testable import SocketIOProtocol

/// An auth provider asked before every CONNECT (socket.io-client's `auth` function, called on
/// every engine open), so a token that expired while disconnected is replaced on the rejoin.
@Suite struct NamespaceAuthProviderTests {
    let decoder = SocketPacketDecoder()

    func packet(_ text: String) throws -> SocketPacket {
        try self.decoder.decode(text)
    }

    @Test func theProviderIsAskedBeforeEachCONNECTAndStaleAnswersAreIgnored() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        // Asked only once the transport is open.
        #expect(machine.connectAskingForAuth() == [])
        #expect(machine.transportOpened() == [.requestAuth(0)])
        #expect(machine.authProvided(["token": "stale"], request: 7) == [])  // not the request
        #expect(machine.authProvided(["token": "t1"], request: 0) == [.send(SocketPacket(type: .connect, data: ["token": "t1"]))])
        #expect(machine.authProvided(["token": "again"], request: 0) == [])  // answered already
        #expect(machine.receive(try self.packet(#"0{"sid":"S1"}"#)) == [.connected(sid: "S1")])

        // The transport is lost: the rejoin asks again, and a late answer to a request from
        // before a loss sends nothing.
        _ = machine.transportClosed(willReconnect: true)
        machine.setStatus(.connecting)
        #expect(machine.transportOpened() == [.requestAuth(1)])
        _ = machine.transportClosed(willReconnect: true)
        #expect(machine.authProvided(["token": "late"], request: 1) == [])
        #expect(machine.transportOpened() == [.requestAuth(2)])
        #expect(machine.authProvided(["token": "t2"], request: 2) == [.send(SocketPacket(type: .connect, data: ["token": "t2"]))])
    }

    @Test func aConnectWhileOpenAsksAtOnceAndALeaveCancelsTheRequest() throws {
        var machine = NamespaceStateMachine(namespace: "/admin")
        _ = machine.transportOpened()
        #expect(machine.connectAskingForAuth() == [.requestAuth(0)])
        // Left before the answer: no CONNECT was sent, so no DISCONNECT either.
        #expect(machine.disconnect() == [.disconnected(.clientDisconnect)])
        #expect(machine.authProvided(["token": "t"], request: 0) == [])
        // A fixed payload again: no provider.
        #expect(machine.connect(auth: ["fixed": true]) == [.send(SocketPacket(type: .connect, namespace: "/admin", data: ["fixed": true]))])
    }

    @Test func aFailingProviderRefusesTheNamespaceLikeTheServer() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        #expect(machine.connectAskingForAuth() == [.requestAuth(0)])
        #expect(machine.authFailed("token store offline", request: 0) == [.connectError(message: "token store offline", data: nil)])
        #expect(!machine.isConnecting)
        #expect(machine.connectAskingForAuth() == [.requestAuth(1)])
    }

    /// With a session to recover, the provider's payload is merged after `pid` and `offset`.
    @Test func theProvidedAuthIsMergedWithTheRecoveryFields() throws {
        var machine = NamespaceStateMachine(namespace: "/")
        _ = machine.transportOpened()
        _ = machine.connectAskingForAuth()
        _ = machine.authProvided(["token": "t1"], request: 0)
        _ = machine.receive(try self.packet(#"0{"sid":"S1","pid":"P"}"#))
        _ = machine.reportConnected(sid: "S1")
        _ = machine.receive(try self.packet(#"2["room","o1"]"#))
        _ = machine.transportClosed(willReconnect: true)
        machine.setStatus(.connecting)
        #expect(machine.transportOpened() == [.requestAuth(1)])
        #expect(
            machine.authProvided(["token": "t2"], request: 1)
                == [.send(SocketPacket(type: .connect, data: .object(JSONObject([("pid", "P"), ("offset", "o1"), ("token", "t2")]))))])
    }

    /// Socket.IO 2.x (protocol v4) sends no CONNECT payload: nothing to ask.
    @Test func revision4NeverAsks() {
        var machine = NamespaceStateMachine(namespace: "/admin", revision: .v4)
        _ = machine.transportOpened()
        #expect(machine.connectAskingForAuth() == [.send(SocketPacket(type: .connect, namespace: "/admin"))])
    }
}
