import Dispatch
import Foundation
import Testing

@testable import SocketIO

@Suite struct SocketEngineTests {
    func manager(_ extra: SocketIOClientConfiguration) -> SocketManager {
        var config: SocketIOClientConfiguration = [.handleQueue(DispatchQueue(label: "engine-test")), .reconnects(false)]
        for option in extra { config.insert(option) }
        // Port 1 on loopback: nothing listens there.
        return SocketManager(socketURL: URL(string: "http://127.0.0.1:1")!, config: config)
    }

    @Test func urlsCarryPathQueryAndEngineVersion() throws {
        let manager = self.manager([.path("/custom"), .connectParams(["room": "a b"]), .secure(true)])
        let engine = SocketEngine(client: manager, url: manager.socketURL, config: manager.config)
        let polling = try #require(URLComponents(url: engine.urlPolling, resolvingAgainstBaseURL: false))
        #expect(polling.scheme == "https")
        #expect(polling.path == "/custom/")
        #expect(polling.queryItems?.contains(URLQueryItem(name: "transport", value: "polling")) == true)
        #expect(polling.queryItems?.contains(URLQueryItem(name: "EIO", value: "4")) == true)
        #expect(polling.queryItems?.contains(URLQueryItem(name: "room", value: "a b")) == true)
        let webSocket = try #require(URLComponents(url: engine.urlWebSocket, resolvingAgainstBaseURL: false))
        #expect(webSocket.scheme == "wss")
        #expect(webSocket.queryItems?.contains(URLQueryItem(name: "transport", value: "websocket")) == true)
        #expect(engine.socketPath == "/custom/")
    }

    @Test(arguments: [false, true])
    func refusedConnectionReportsErrorThenDisconnect(_ forceWebsockets: Bool) async {
        let manager = self.manager([.forceWebsockets(forceWebsockets)])
        let socket = manager.defaultSocket
        let events = Recorder<String>()
        socket.on(clientEvent: .error) { _, _ in events.append("error") }
        socket.on(clientEvent: .disconnect) { _, _ in events.append("disconnect") }
        socket.connect()
        #expect(await events.wait(forCount: 2, timeout: 10))
        #expect(events.values == ["error", "disconnect"])
        #expect(socket.status == .disconnected)
        #expect(manager.engine?.connected == false)
    }

    @Test func writesWhileClosedCompleteWithoutSending() {
        let manager = self.manager([])
        let engine = SocketEngine(client: manager, url: manager.socketURL, config: manager.config)
        let completed = Recorder<Bool>()
        engine.write("2[\"x\"]", withType: .message, withData: [], completion: { completed.append(true) })
        #expect(completed.count == 1)
        #expect(!engine.connected)
    }
}
