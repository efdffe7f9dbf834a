import Foundation
import RealtimeHTTP
import Testing

@testable import SocketIO

/// The engine's options are parsed once into `SocketEngineOptions`; a connection attempt
/// uses the snapshot taken at `connect()`, so what is set while connected applies at the
/// next connect (the public getters show the new value at once, as upstream's).
@Suite struct SocketEngineOptionsTests {
    final class SilentClient: QuietEngineClient, @unchecked Sendable {}

    @Test func parsingSetsWhatTheConfigurationNamesAndDerivesTheURLs() {
        var options = SocketEngineOptions(url: URL(string: "https://chat.example/")!)
        #expect(options.secure)
        options.apply(
            [
                .path("/custom"), .forceWebsockets(true), .extraHeaders(["B": "2", "A": "1"]),
                .connectParams(["k": "a+b"]), .version(.two), .compress,
            ], url: URL(string: "https://chat.example/")!)
        #expect(options.socketPath == "/custom/")
        #expect(options.forceWebsockets && !options.forcePolling && options.compress)
        #expect(options.urlPolling.absoluteString == "https://chat.example/custom/?transport=polling&b64=1&k=a%2Bb&EIO=3")
        #expect(options.urlWebSocket.absoluteString == "wss://chat.example/custom/?transport=websocket&k=a%2Bb&EIO=3")
        // Options a later configuration does not name keep their values.
        options.apply([.selfSigned(true)], url: URL(string: "https://chat.example/")!)
        #expect(options.socketPath == "/custom/" && options.forceWebsockets && options.selfSigned)

        let snapshot = options.snapshot(proxy: nil)
        #expect(snapshot.extraHeaders.map(\.name) == ["A", "B"])
        #expect(snapshot.machine.forceWebSockets && snapshot.machine.protocolVersion == .v3)
        #expect(snapshot.tls == TLSConfiguration(verification: .none))
        #expect(snapshot.proxy == .direct)
        #expect(snapshot.compress)
    }

    /// Headers, TLS, proxy and URLs set while an attempt runs apply at the next `connect()`.
    @Test func settingsChangedWhileConnectedApplyAtTheNextConnect() {
        let client = SilentClient()
        // No transports: `connect()` starts the attempt (taking the snapshot), then reports
        // it cannot go on; what requests would carry is what the attempt fixed.
        let engine = SocketEngine(
            client: client, url: URL(string: "http://chat.example/")!,
            config: [.extraHeaders(["X-Round": "1"]), .connectParams(["r": 1])], transports: nil)
        engine.connect()
        #expect(engine.requestHeaders(forWebSocket: false).first(name: "X-Round") == "1")

        engine.extraHeaders = ["X-Round": "2"]
        engine.connectParams = ["r": 2]
        engine.setConfigs([.selfSigned(true)])
        engine.proxy = .http(host: "10.1.1.1", port: 3128)
        // The getters show what was set...
        #expect(engine.extraHeaders == ["X-Round": "2"])
        #expect(engine.urlPolling.query?.contains("r=2") == true)
        // ...the running attempt keeps what it started with.
        #expect(engine.requestHeaders(forWebSocket: false).first(name: "X-Round") == "1")
        #expect(engine.pollingRequest(method: "GET", sid: nil, idleTimeout: .seconds(1)).url.query?.contains("r=1") == true)
        #expect(engine.webSocketURL(sid: nil).query?.contains("r=1") == true)
        #expect(engine.tlsConfiguration() == TLSConfiguration(verification: .fullVerification))
        #expect(engine.proxyConfiguration() == .direct)

        engine.connect()
        #expect(engine.requestHeaders(forWebSocket: false).first(name: "X-Round") == "2")
        #expect(engine.pollingRequest(method: "GET", sid: nil, idleTimeout: .seconds(1)).url.query?.contains("r=2") == true)
        #expect(engine.webSocketURL(sid: nil).query?.contains("r=2") == true)
        #expect(engine.tlsConfiguration() == TLSConfiguration(verification: .none))
        #expect(engine.proxyConfiguration().description == "http://10.1.1.1:3128")
        withExtendedLifetime(client) {}
    }

    /// The manager's `config` setter reaches its engine's options (for the next connect).
    @Test func theManagersConfigSetterReachesTheEnginesOptions() {
        let manager = SocketManager(socketURL: URL(string: "http://127.0.0.1:1")!, config: [.log(false)])
        let engine = SocketEngine(client: manager, url: manager.socketURL, config: manager.config, transports: nil)
        manager.engine = engine
        manager.config = [.log(false), .extraHeaders(["X-Set": "later"]), .path("/other/")]
        #expect(engine.extraHeaders == ["X-Set": "later"])
        #expect(engine.socketPath == "/other/")
        engine.connect()
        #expect(engine.requestHeaders(forWebSocket: true).first(name: "X-Set") == "later")
        #expect(engine.webSocketURL(sid: nil).absoluteString.hasPrefix("ws://127.0.0.1:1/other/?"))
    }
}
